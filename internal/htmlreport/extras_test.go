package htmlreport

import (
	"bytes"
	"encoding/json"
	"github.com/llmbench/llmbench/internal/table"
	"strings"
	"testing"
)

// TestExtrasTable: the run page's llmbench extras are labelled figures
// with their unit and JSON key, a latency summary on one line, counts by
// name on one line, a share of cores in percent; a key the table does
// not know yet still shows, under its dotted key.
func TestExtrasTable(t *testing.T) {
	t.Parallel()
	obj := map[string]any{}
	dec := json.NewDecoder(strings.NewReader(`{
		"interrupted": false,
		"client_queue_time": {"n": 60, "mean_ms": 1.5, "median_ms": 1.0, "std_ms": 0.5, "p99_ms": 3.0, "p50_ms": 1.0},
		"p10_per_user_tps": 30.0, "p1_per_user_tps": 10.0, "median_per_user_tps": 40.0,
		"stream": {"errors": {"timeout": 2, "http_503": 1}, "without_usage": 0},
		"self_check": {"verdict": "valid", "cpu_utilization": 0.034, "reasons": []},
		"closed_loop": {"users": 16, "think_time": "1s-3s"}
	}`))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	tab := extrasTable("x", obj)
	got := map[string][2]string{}
	var order []string
	for _, r := range tab.Rows {
		got[r[2].Text] = [2]string{r[0].Text, r[1].Text}
		order = append(order, r[2].Text)
	}
	tests := []struct{ key, label, value string }{
		{"interrupted", "Run interrupted", "no"},
		{"client_queue_time", "Client queue time: waiting for a concurrency slot (ms)", "mean 1.50 · median 1.00 · std 0.50 · p50 1.00 · p99 3.00 (n 60)"},
		{"median_per_user_tps", "Per-user decode speed, median (tok/s)", "40.00"},
		{"p1_per_user_tps", "Per-user decode speed, p1: 1 % of requests were slower (tok/s)", "10.00"},
		{"p10_per_user_tps", "Per-user decode speed, p10: 10 % of requests were slower (tok/s)", "30.00"},
		{"stream.errors", "Failures by error class", "http_503 1, timeout 2"},
		{"stream.without_usage", "Streams without a usage frame", "0"},
		{"self_check.verdict", "Client self-check", "valid"},
		{"self_check.cpu_utilization", "Client CPU, share of usable cores", "3.4 %"},
		{"self_check.reasons", "Self-check: reasons", "none"},
		{"closed_loop.think_time", "closed_loop.think_time", "1s-3s"},
		{"closed_loop.users", "closed_loop.users", "16"},
	}
	for _, tt := range tests {
		if g, ok := got[tt.key]; !ok || g != [2]string{tt.label, tt.value} {
			t.Errorf("%s: row %q %q (present %v), want %q %q", tt.key, g[0], g[1], ok, tt.label, tt.value)
		}
	}
	if len(tab.Rows) != len(tests) {
		t.Errorf("%d rows, want %d: %v", len(tab.Rows), len(tests), order)
	}
	// Known figures in the table's order, p1 before p10, unknown keys last.
	want := "interrupted client_queue_time median_per_user_tps p1_per_user_tps p10_per_user_tps stream.without_usage stream.errors self_check.verdict self_check.reasons self_check.cpu_utilization closed_loop.think_time closed_loop.users"
	if g := strings.Join(order, " "); g != want {
		t.Errorf("order\n%s\nwant\n%s", g, want)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, &Page{Sections: []Section{{After: []table.Table{tab}}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Figure") {
		t.Errorf("text report without the table:\n%s", buf.String())
	}
}
