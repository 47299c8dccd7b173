package htmlreport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
)

func fp(v float64) *float64 { return &v }

// conformanceRun is a run in memory from a conformance input, with extra.
func conformanceRun(t *testing.T, extra map[string]any) *Run {
	t.Helper()
	path := filepath.Join(conformanceDir, "goodput_slos.input.json")
	p, recs, _, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := metrics.ParamsFrom(&p, metrics.Whitespace{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		t.Fatal(err)
	}
	run, err := NewRun(path, s, &p, recs, extra)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestNewRunNestedExtras: run's extras named "llmbench/child" go inside
// the llmbench object, as the saved result has them (they went to a
// top-level key "llmbench/self_check" that no section read).
func TestNewRunNestedExtras(t *testing.T) {
	t.Parallel()
	run := conformanceRun(t, map[string]any{"llmbench/self_check": map[string]any{"verdict": "valid"}})
	x, _ := run.Result.Values[report.ExtrasKey].(map[string]any)
	sc, _ := x["self_check"].(map[string]any)
	if sc["verdict"] != "valid" {
		t.Errorf("llmbench.self_check %v; top-level keys %v", x["self_check"], sortedKeys(run.Result.Values))
	}
}

// TestServerTimeCharts: the run page adds up the replicas' running and
// waiting samples scrape by scrape, takes the larger KV usage, draws
// them on the client's time axis, and lists the summary, not the
// samples, in its tables.
func TestServerTimeCharts(t *testing.T) {
	t.Parallel()
	series := func(vals ...[2]float64) servermetrics.Series {
		return servermetrics.Series{Labels: map[string]string{}, Samples: vals}
	}
	res := &servermetrics.Result{
		Endpoints: []servermetrics.Endpoint{{URL: "http://a/metrics", Scrapes: 3}, {URL: "http://b/metrics", Scrapes: 3}},
		Families: map[string]servermetrics.Family{
			"vllm:num_requests_running": {Type: "gauge", Series: []servermetrics.Series{series([2]float64{0, 0}, [2]float64{1, 4}, [2]float64{2, 1}), series([2]float64{0, 1}, [2]float64{1, 4}, [2]float64{2, 0})}},
			"vllm:num_requests_waiting": {Type: "gauge", Series: []servermetrics.Series{series([2]float64{0, 0}, [2]float64{1, 3}, [2]float64{2, 0})}},
			"vllm:kv_cache_usage_perc":  {Type: "gauge", Series: []servermetrics.Series{series([2]float64{1, 0.25}), series([2]float64{1, 0.5})}},
		},
		Summary: servermetrics.Summary{Server: "vllm", Scrapes: 6, RunningMax: fp(8)},
	}
	run := conformanceRun(t, map[string]any{"llmbench/server_metrics": res})
	charts := ServerTimeCharts(run)
	if len(charts) != 2 || charts[0].ID != "server-batch-time" || charts[1].ID != "server-kv-time" {
		t.Fatalf("charts %+v", charts)
	}
	t0 := firstSend(run)
	at := func(x float64) float64 { return max(0, x-t0) }
	want := [][2]float64{{at(0), 1}, {at(1), 8}, {at(2), 1}}
	if got := charts[0].Series[0].XY; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("running %v, want %v", got, want)
	}
	if got := charts[0].Series[1].XY; len(got) != 3 || got[1][1] != 3 {
		t.Errorf("waiting %v", got)
	}
	if got := charts[1].Series[0].XY; len(got) != 1 || got[0][1] != 50 {
		t.Errorf("KV usage %v, want the larger replica's 50 %%", got)
	}
	sec := runSection(run)
	var titles []string
	for _, tb := range sec.After {
		titles = append(titles, tb.Title)
		for _, row := range tb.Rows {
			for _, c := range row {
				if strings.Contains(c.Text, "samples") || strings.Contains(c.Text, "families") {
					t.Errorf("table %q shows %q", tb.Title, c.Text)
				}
			}
		}
	}
	if !strings.Contains(strings.Join(titles, "|"), "Server Specifics (the server's own metrics)") {
		t.Errorf("tables %q", titles)
	}
	if ServerTimeCharts(conformanceRun(t, nil)) != nil {
		t.Error("charts for a run without server metrics")
	}
}

// TestServerSweepCharts: the sweep page draws the server's figures
// against load under the throughput chart, with the cause on the
// saturation line, and energy per token only when DCGM was read.
func TestServerSweepCharts(t *testing.T) {
	t.Parallel()
	sw := &Sweep{Sweep: &capacity.Sweep{LoadKind: capacity.Concurrency,
		Saturation: &capacity.Saturation{Load: 8, Cause: "batch_limit"}}}
	for _, l := range []float64{4, 8, 16} {
		sw.Steps = append(sw.Steps, capacity.Row{Load: l, LoadKind: capacity.Concurrency, OutputThroughput: 100 * l,
			Metrics: map[string]float64{"output_throughput": 100 * l},
			Server:  &servermetrics.Summary{RunningMax: fp(min(l, 8)), RunningMean: fp(min(l, 8) - 1), WaitingMax: fp(max(0, l-8)), WaitingMean: fp(0), KVCacheUsageMax: fp(0.1), Preemptions: fp(0)}})
	}
	var ids []string
	for _, c := range SweepCharts(sw) {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, ","); !strings.HasPrefix(got, "sweep-throughput,sweep-server-batch,sweep-server-kv,sweep-server-preemptions") {
		t.Errorf("charts %s", got)
	}
	c := ServerSweepCharts(sw)
	if c[0].VMarks[0].Label != "saturation: 8, cause: batch_limit" || len(c[0].Series) != 4 || c[1].Series[0].XY[0][1] != 10 {
		t.Errorf("batch chart %+v, KV %v", c[0].VMarks, c[1].Series[0].XY)
	}
	sw.Steps[1].Server.EnergyPerOutputTokenJ = fp(0.15)
	if c := ServerSweepCharts(sw); c[len(c)-1].ID != "sweep-energy" || len(c[len(c)-1].Series[0].XY) != 1 {
		t.Errorf("energy chart %+v", c[len(c)-1])
	}
	for i := range sw.Steps {
		sw.Steps[i].Server = nil
	}
	if c := ServerSweepCharts(sw); c != nil {
		t.Errorf("charts without server metrics: %+v", c)
	}
}
