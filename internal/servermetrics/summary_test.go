package servermetrics

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/llmbench/llmbench/internal/golden"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestHistQuantile(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	tests := []struct {
		name string
		les  []float64
		cum  []float64
		q    float64
		want float64
	}{
		// The vector: rank 25 of 50 in (0.025, 0.05].
		{"issue p50", []float64{0.025, 0.05, 0.1, inf}, []float64{0, 35, 50, 50}, 0.5, 0.042857142857142858},
		// rank 49.5 in (0.05, 0.1].
		{"issue p99", []float64{0.025, 0.05, 0.1, inf}, []float64{0, 35, 50, 50}, 0.99, 0.098333333333333335},
		// rank 45 in (0.05, 0.1]: 0.05 + 0.05*10/15.
		{"issue p90", []float64{0.025, 0.05, 0.1, inf}, []float64{0, 35, 50, 50}, 0.9, 0.083333333333333343},
		// First bucket interpolates from 0.
		{"first bucket", []float64{1, 2, inf}, []float64{10, 10, 10}, 0.5, 0.5},
		// Rank in +Inf: the largest finite bound, as Prometheus.
		{"inf bucket", []float64{1, 2, inf}, []float64{0, 1, 10}, 0.9, 2},
		// Nothing observed: NaN (absent in the result).
		{"empty", []float64{1, inf}, []float64{0, 0}, 0.5, math.NaN()},
		// Non-monotonic counts from edge interpolation are made monotonic.
		{"non-monotonic", []float64{1, 2, inf}, []float64{4, 3, 4}, 0.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := histQuantile(tt.les, tt.cum, tt.q)
			if math.IsNaN(tt.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("histQuantile = %v, want %v", got, tt.want)
			}
		})
	}
	// The figures the issue prints, at its precision.
	les, cum := []float64{0.025, 0.05, 0.1, inf}, []float64{0, 35, 50, 50}
	if p50, p99 := histQuantile(les, cum, 0.5), histQuantile(les, cum, 0.99); math.Round(p50*1e6) != 42857 || math.Round(p99*1e6) != 98333 {
		t.Errorf("p50 %v p99 %v, want 0.042857 and 0.098333", p50, p99)
	}
}

var t0 = time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)

func sec(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func TestCounterIncrease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		ts, vs     []float64
		start, end float64
		want       float64
	}{
		// Scrapes at the window's edges: the plain difference.
		{"edges", []float64{0, 1, 2}, []float64{100, 150, 220}, 0, 2, 120},
		// Prometheus-style reset: 130 -> 5 means a restart that counted 5
		// from zero: 100,130,135,155 -> 55.
		{"reset", []float64{0, 1, 2, 3}, []float64{100, 130, 5, 25}, 0, 3, 55},
		// Two resets.
		{"two resets", []float64{0, 1, 2, 3}, []float64{10, 2, 1, 4}, 0, 3, 6},
		// Window edges between scrapes: interpolated. 100 at 10 s, 200 at
		// 20 s; [15 s, 20 s] grows by 50.
		{"interpolated start", []float64{10, 20}, []float64{100, 200}, 15, 20, 50},
		// [12 s, 17 s] of the same: 70 over 170-120 = 50.
		{"interpolated both", []float64{10, 20}, []float64{100, 200}, 12, 17, 50},
		// Window beyond the scrapes: clamped to the nearest, no extrapolation.
		{"clamped", []float64{10, 20}, []float64{100, 200}, 0, 30, 100},
		// Interpolation across a reset uses the adjusted values.
		{"reset inside interpolation", []float64{0, 10}, []float64{100, 20}, 0, 5, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cumulative
			for i := range tt.ts {
				c.add(sec(tt.ts[i]), []float64{tt.vs[i]})
			}
			got := c.increase(sec(tt.start), sec(tt.end))
			if math.Abs(got[0]-tt.want) > 1e-9 {
				t.Errorf("increase = %v, want %v", got[0], tt.want)
			}
		})
	}
}

// TestPruneKeepsEdges checks that pruning (which bounds memory on long
// runs) never changes an increase.
func TestPruneKeepsEdges(t *testing.T) {
	t.Parallel()
	var full, pruned cumulative
	mark := sec(4.5)
	for i := range 40 {
		v := float64(i * i)
		if i == 20 {
			v = 3 // a reset mid-window
		}
		full.add(sec(float64(i)), []float64{v})
		pruned.add(sec(float64(i)), []float64{v})
		if i >= 4 {
			pruned.prune(mark)
		} else {
			pruned.prune(time.Time{})
		}
	}
	if len(pruned.pts) > 5 {
		t.Errorf("pruned to %d points, want at most 5", len(pruned.pts))
	}
	for _, end := range []float64{38.5, 39} {
		a, b := full.increase(mark, sec(end)), pruned.increase(mark, sec(end))
		if math.Abs(a[0]-b[0]) > 1e-9 {
			t.Errorf("end %v: pruned increase %v, full %v", end, b[0], a[0])
		}
	}
}

func TestGaugeStats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want gaugeStats
	}{
		{"one sample", []float64{3}, gaugeStats{3, 3, 3, 3, 3}},
		// NumPy: percentile([1,2,3,4], 50) = 2.5, 99 -> 3.97.
		{"four", []float64{4, 1, 3, 2}, gaugeStats{2.5, 1, 4, 2.5, 3.97}},
		// A plateau with one spike: p50 stays, p99 near the spike.
		{"plateau", []float64{8, 8, 8, 8, 8, 8, 8, 8, 8, 16}, gaugeStats{8.8, 8, 16, 8, 15.28}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := statsOf(tt.in)
			for i, pair := range [][2]float64{{got.mean, tt.want.mean}, {got.min, tt.want.min}, {got.max, tt.want.max}, {got.p50, tt.want.p50}, {got.p99, tt.want.p99}} {
				if math.Abs(pair[0]-pair[1]) > 1e-9 {
					t.Errorf("stat %d = %v, want %v (%+v)", i, pair[0], pair[1], got)
				}
			}
		})
	}
}

// feed builds a Collector with one endpoint per exposition list and
// records each exposition at its time, as scrapes would.
func feed(t *testing.T, urls []string, scrapes map[string][]timed, mark, end time.Time) Result {
	t.Helper()
	c := &Collector{keep: map[string]bool{}}
	for _, u := range urls {
		ep := &endpoint{shown: u, series: map[string]*series{}}
		c.eps = append(c.eps, ep)
		for _, s := range scrapes[u] {
			got, err := parse(strings.NewReader(s.text), expfmt.NewFormat(expfmt.TypeTextPlain), c.keeps)
			if err != nil {
				t.Fatalf("%s at %v: %v", u, s.at, err)
			}
			if !mark.IsZero() && !s.at.Before(mark) {
				c.mark = mark
			}
			c.record(ep, s.at, got)
		}
	}
	c.mark, c.end = mark, end
	return c.summarize()
}

type timed struct {
	at   time.Time
	text string
}

// vllmScrape writes a vLLM-like exposition.
func vllmScrape(running, waiting, kv, gen, prompt, preempt, hits, queries float64, ttftBuckets [4]float64, ttftSum float64) string {
	var b strings.Builder
	w := func(f string, a ...any) { b.WriteString(strings.TrimSpace(sprintf(f, a...)) + "\n") }
	w("# HELP vllm:num_requests_running Number of requests in model execution batches.")
	w("# TYPE vllm:num_requests_running gauge")
	w(`vllm:num_requests_running{engine="0",model_name="m"} %v`, running)
	w("# TYPE vllm:num_requests_waiting gauge")
	w(`vllm:num_requests_waiting{engine="0",model_name="m"} %v`, waiting)
	w("# TYPE vllm:gpu_cache_usage_perc gauge")
	w(`vllm:gpu_cache_usage_perc{engine="0",model_name="m"} %v`, kv)
	w("# TYPE vllm:generation_tokens_total counter")
	w(`vllm:generation_tokens_total{engine="0",model_name="m"} %v`, gen)
	w("# TYPE vllm:prompt_tokens_total counter")
	w(`vllm:prompt_tokens_total{engine="0",model_name="m"} %v`, prompt)
	w("# TYPE vllm:num_preemptions_total counter")
	w(`vllm:num_preemptions_total{engine="0",model_name="m"} %v`, preempt)
	w("# TYPE vllm:gpu_prefix_cache_hits_total counter")
	w(`vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} %v`, hits)
	w("# TYPE vllm:gpu_prefix_cache_queries_total counter")
	w(`vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} %v`, queries)
	w("# TYPE vllm:time_to_first_token_seconds histogram")
	for i, le := range []string{"0.025", "0.05", "0.1", "+Inf"} {
		w(`vllm:time_to_first_token_seconds_bucket{engine="0",le="%s",model_name="m"} %v`, le, ttftBuckets[i])
	}
	w(`vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} %v`, ttftBuckets[3])
	w(`vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} %v`, ttftSum)
	w("# TYPE vllm:some_unknown_family gauge")
	w(`vllm:some_unknown_family 1`)
	return b.String()
}

func dcgmScrape(util, power, energyMJ float64) string {
	return sprintf(`# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",modelName="NVIDIA A10G"} %v
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",modelName="NVIDIA A10G"} %v
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-1",modelName="NVIDIA A10G"} %v
`, util, power, energyMJ)
}

// TestSummaryGolden summarises a scripted window: a server whose
// counters reset mid-run, a window that starts and ends between scrapes,
// the histogram vector, old vLLM names, and a DCGM exporter.
func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	srv, gpu := "http://10.0.0.1:8000/metrics", "http://10.0.0.1:9400/metrics"
	// The TTFT histogram grows by the vector {0, 35, 50, 50}
	// between the window's edges (scrapes at 1 s and 5 s, the window
	// [1 s, 5 s]).
	scr := map[string][]timed{
		srv: {
			{sec(0), vllmScrape(0, 0, 0.00, 1000, 500, 0, 0, 0, [4]float64{0, 0, 0, 0}, 0)},
			{sec(1), vllmScrape(4, 0, 0.20, 1000, 500, 0, 0, 100, [4]float64{0, 0, 0, 0}, 0)},
			{sec(2), vllmScrape(8, 4, 0.50, 1400, 900, 1, 40, 400, [4]float64{0, 10, 20, 20}, 1.2)},
			// The server restarted: counters count from zero again.
			{sec(3), vllmScrape(8, 8, 0.95, 200, 100, 0, 10, 50, [4]float64{0, 5, 10, 10}, 0.6)},
			{sec(4), vllmScrape(8, 6, 0.80, 500, 300, 2, 30, 150, [4]float64{0, 15, 20, 20}, 1.0)},
			{sec(5), vllmScrape(2, 0, 0.10, 900, 400, 2, 40, 200, [4]float64{0, 25, 30, 30}, 1.6)},
		},
		gpu: {
			{sec(1), dcgmScrape(10, 100, 5_000_000)},
			{sec(3), dcgmScrape(90, 280, 5_400_000)},
			{sec(5), dcgmScrape(50, 200, 5_900_000)},
		},
	}
	res := feed(t, []string{srv, gpu}, scr, sec(1), sec(5))
	notes := res.CrossCheck(Client{OutputTokens: 1500, MeanInFlight: 20})
	got, err := json.MarshalIndent(struct {
		Result Result   `json:"server_metrics"`
		Notes  []string `json:"cross_check"`
	}{res, notes}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "summary.golden.json", append(got, '\n'), *update)
}

// TestWindowEdgesInterpolated: a window that starts and ends between
// scrapes interpolates counters there.
func TestWindowEdgesInterpolated(t *testing.T) {
	t.Parallel()
	srv := "http://s/metrics"
	scr := map[string][]timed{srv: {
		{sec(0), vllmScrape(1, 0, 0, 0, 0, 0, 0, 0, [4]float64{}, 0)},
		{sec(10), vllmScrape(1, 0, 0, 1000, 0, 0, 0, 0, [4]float64{}, 0)},
		{sec(20), vllmScrape(1, 0, 0, 3000, 0, 0, 0, 0, [4]float64{}, 0)},
	}}
	res := feed(t, []string{srv}, scr, sec(5), sec(15))
	// 500 at 5 s, 2000 at 15 s.
	if g := res.Summary.GenerationTokens; g == nil || *g != 1500 {
		t.Errorf("generation_tokens = %v, want 1500", g)
	}
	rate := res.Families["vllm:generation_tokens_total"].Series[0].Rate
	if rate == nil || *rate != 150 {
		t.Errorf("rate = %v, want 150", rate)
	}
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
