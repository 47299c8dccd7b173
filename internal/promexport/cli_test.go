package promexport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/cli"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// TestRunMetricsAddr: `llmbench run --metrics-addr` against the simulator,
// scraped by a real Prometheus every second: the request and token
// counters Prometheus stored equal the run's saved totals, and
// histogram_quantile(0.99) of TTFT lies within one bucket of the run's
// own p99 TTFT.
func TestRunMetricsAddr(t *testing.T) {
	bin := needTool(t, "prometheus")
	addr := freeAddr(t)
	srv := simtest.Start(t, simtest.Preset("fast"))
	dir := t.TempDir()
	type exit struct {
		code     int
		out, err string
	}
	done := make(chan exit, 1)
	go func() {
		var out, errb bytes.Buffer
		code := cli.Main(t.Context(), "test", []string{"run", "--base-url", srv.URL, "--model", "llmbench-sim",
			"--num-prompts", "300", "--request-rate", "40", "--random-input-len", "32", "--random-output-len", "16",
			"--tokenizer", "builtin:gpt2", "--percentile-metrics", "ttft", "--metric-percentiles", "99",
			"--metrics-addr", addr, "--metrics-linger", "60s", "--save-result", "--result-dir", dir,
			"--result-filename", "r.json", "--disable-tqdm", "--request-id-prefix", "cli-"}, nil, &out, &errb)
		done <- exit{code, out.String(), errb.String()}
	}()
	prom := startPrometheus(t, bin, addr, srv.Addr)
	var ex exit
	select {
	case ex = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("llmbench run did not finish")
	}
	if ex.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", ex.code, ex.out, ex.err)
	}
	var res map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	// The exporter is gone: its series are stale, so read the last value
	// each had (range selectors skip staleness markers).
	last := func(metric, sel string) string {
		return fmt.Sprintf(`sum(last_over_time(%s{phase="main"%s}[10m]))`, metric, sel)
	}
	want := map[string]float64{
		last("llmbench_requests_total", ""):                      res["completed"].(float64) + res["failed"].(float64),
		last("llmbench_requests_total", `,outcome="success"`):    res["completed"].(float64),
		last("llmbench_input_tokens_total", ""):                  res["total_input_tokens"].(float64),
		last("llmbench_output_tokens_total", ""):                 res["total_output_tokens"].(float64),
		last("llmbench_ttft_seconds_count", ""):                  res["completed"].(float64),
		`max(last_over_time(llmbench_target_request_rate[10m]))`: 40,
	}
	poll(t, 30*time.Second, "the run's final figures", func() (bool, string) {
		for q, w := range want {
			if got, ok := prom.scalar(t, q); !ok || got != w {
				return false, fmt.Sprintf("%s = %v (present %v), want %v", q, got, ok, w)
			}
		}
		return true, ""
	})
	q := `histogram_quantile(0.99, sum by (le) (last_over_time(llmbench_ttft_seconds_bucket{phase="main"}[10m])))`
	got, ok := prom.scalar(t, q)
	if !ok {
		t.Fatalf("%s: no result", q)
	}
	p99 := res["p99_ttft_ms"].(float64) / 1000
	if gi, wi := bucketIndex(got), bucketIndex(p99); gi < wi-1 || gi > wi+1 {
		t.Errorf("histogram_quantile(0.99) = %v s is not within one bucket of the run's p99 TTFT %v s", got, p99)
	}
	t.Logf("p99 TTFT: Prometheus %.4f s, llmbench %.4f s", got, p99)
}
