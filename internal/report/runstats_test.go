package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// TestWriteRunStats: the section over K runs lists, in vLLM's table
// order, each figure the runs reported with AIPerf's mean, std, se, t,
// low, high and cv; figures without run statistics are left out, and
// --runs auto's outcome closes it.
func TestWriteRunStats(t *testing.T) {
	t.Parallel()
	s := &metrics.Summary{Percentiles: []float64{99.9}, Metrics: []metrics.Stats{{Metric: metrics.TTFT}}}
	vals := map[string][]float64{
		"output_throughput": {100, 102, 98},
		"mean_ttft_ms":      {50, 60, 55},
		"p99.9_ttft_ms":     {80, 80, 80},
	}
	rs := map[string]stats.RunStats{}
	for k, v := range vals {
		rs[k], _ = stats.Runs(v, stats.DefaultConfidence)
	}
	rel := rs["output_throughput"].RelativeWidth()
	conv := &stats.Convergence{Mode: "auto", CIWidth: 0.1, MaxRuns: 10, Runs: 3, Converged: true,
		Statistics: []stats.ConvergedStat{{Key: "output_throughput", RelativeWidth: &rel, Converged: true}}}
	var b bytes.Buffer
	if err := WriteRunStats(&b, s, rs, 3, conv); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"========= Across 3 runs (95% t interval) =========",
		"Figure                                 mean       std        se      t        low       high     cv",
		"Output token throughput (tok/s)      100.00      2.00      1.15  4.303      95.03     104.97   2.0%",
		"Mean TTFT (ms)                        55.00      5.00      2.89  4.303      42.58      67.42   9.1%",
		"P99.9 TTFT (ms)                       80.00      0.00      0.00  4.303      80.00      80.00   0.0%",
		"Converged after 3 runs (--runs auto): each deciding figure's interval is under 10% of its mean: output_throughput 9.9 %.",
		"==================================================", ""}, "\n")
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteRunStats(&b, s, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Fewer than two complete runs: no interval over runs.") {
		t.Errorf("one run:\n%s", b.String())
	}
	conv.Converged, conv.Statistics[0].Converged, conv.Runs = false, false, 10
	if got := ConvergenceLine(conv); got != "NOT converged after 10 runs (--max-runs 10): output_throughput 9.9 % (needs < 10 %); the figures stand, their intervals are wider than asked." {
		t.Errorf("not converged: %q", got)
	}
}
