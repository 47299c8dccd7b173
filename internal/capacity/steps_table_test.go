package capacity

import (
	"strings"
	"testing"
)

// TestStepTableViews: each format shows its own columns of the one step
// table: the console all its fixed columns and the flags, the page only
// the figures some step has, the CSV the JSON keys.
func TestStepTableViews(t *testing.T) {
	t.Parallel()
	usd := 0.5
	s := &Sweep{LoadKind: Concurrency, Steps: []Row{
		{Load: 1, Completed: 10, OutputThroughput: 100, Metrics: map[string]float64{"output_throughput": 100}, HarnessLimited: true},
		{Load: 2, Completed: 20, OutputThroughput: 190, Metrics: map[string]float64{"output_throughput": 190}, USDPer1MOutputTokens: &usd},
	}}
	tests := []struct {
		view StepView
		want string
	}{
		{StepText, "concurrency|completed|req/s|out tok/s|TTFT ms|p99 TTFT|ITL ms|p99 ITL|TPOT ms|user TPS|p10 TPS|err %|SLA|flags"},
		{StepPage, "load|completed|output tok/s|USD/1M tok|SLA"},
	}
	for _, tt := range tests {
		tb := StepTable(s, tt.view)
		if got := strings.Join(tb.Headers(), "|"); got != tt.want {
			t.Errorf("view %d headers\n%s\nwant\n%s", tt.view, got, tt.want)
		}
		if len(tb.Rows) != 2 || len(tb.Rows[0]) != len(tb.Columns) {
			t.Errorf("view %d: %d rows of %d cells for %d columns", tt.view, len(tb.Rows), len(tb.Rows[0]), len(tb.Columns))
		}
	}
	page := StepTable(s, StepPage)
	if got := page.Rows[0][3].Text + " " + page.Rows[1][3].Text; got != "- 0.50" {
		t.Errorf("USD/1M tok cells %q, want \"- 0.50\"", got)
	}
	if got := page.Rows[0][4].Text; got != "- (harness-limited)" {
		t.Errorf("SLA cell %q", got)
	}
	if got := StepTable(s, StepText).Rows[0][13].Text; got != "H" {
		t.Errorf("flags %q, want H", got)
	}
	if got := StepTable(s, StepCSV).Columns[0].Key; got != "load" {
		t.Errorf("CSV first column %q", got)
	}
}
