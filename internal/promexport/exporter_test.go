package promexport

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/llmbench/llmbench/internal/record"
)

func intp(v int) *int { return &v }

func f64p(v float64) *float64 { return &v }

// records is a small run: three successes (one of a single token, one
// counted by a tokenizer), two failures.
func records() []record.Record {
	return []record.Record{
		{Index: 0, Success: true, PromptLen: 100, OutputTokens: intp(5), TTFT: 0.2, ITL: []float64{0.01, 0.02, 0.03, 0.04},
			Latency: 0.3, StartTime: 1.0, IntendedTime: f64p(0.9), QueueTime: 0.05},
		{Index: 1, Success: true, PromptLen: 50, OutputTokens: intp(1), TTFT: 0.45, Latency: 0.45, StartTime: 1.1},
		{Index: 2, Success: true, PromptLen: 10, GeneratedText: "a b c", TTFT: 1.2, ITL: []float64{0.5, 0.5},
			Latency: 2.2, StartTime: 1.2, OutputTokensSource: record.SourceTokenizer, TokenizerCount: 3},
		{Index: 3, Success: false, PromptLen: 70, ErrorClass: record.ErrHTTP5xx, StartTime: 1.3, QueueTime: 0.01},
		{Index: 4, Success: false, PromptLen: 70, ErrorClass: record.ErrHTTP5xx, StartTime: 1.4},
		{Index: 5, Success: false, PromptLen: 70, StartTime: 1.5},
	}
}

func TestObserveCountsExactly(t *testing.T) {
	t.Parallel()
	e := New(Config{RunID: "r1", Backend: "openai", Model: "m", Goodput: map[string]float64{"ttft": 500}})
	recs := records()
	done := e.OnDone(PhaseMain)
	for i := range recs {
		done(&recs[i])
	}
	e.Observe(PhaseWarmup, &recs[0])

	counter := []struct {
		name  string
		got   float64
		want  float64
		label string
	}{
		{"success", testutil.ToFloat64(e.requests.WithLabelValues(PhaseMain, OutcomeSuccess)), 3, "three successes"},
		{"failure", testutil.ToFloat64(e.requests.WithLabelValues(PhaseMain, OutcomeFailure)), 3, "three failures"},
		{"http_5xx", testutil.ToFloat64(e.errors.WithLabelValues(PhaseMain, record.ErrHTTP5xx)), 2, "classified"},
		{"unclassified", testutil.ToFloat64(e.errors.WithLabelValues(PhaseMain, "unclassified")), 1, "empty class, metrics' name"},
		{"input", testutil.ToFloat64(e.inTokens.WithLabelValues(PhaseMain)), 160, "successes only"},
		{"output", testutil.ToFloat64(e.outTokens.WithLabelValues(PhaseMain)), 9, "usage 5 + usage 1 + tokenizer 3"},
		{"good", testutil.ToFloat64(e.goodReqs.WithLabelValues(PhaseMain)), 2, "TTFT 1.2 s misses the 500 ms SLO"},
		{"good tokens", testutil.ToFloat64(e.goodOutToken.WithLabelValues(PhaseMain)), 6, "5 + 1"},
		{"warmup kept apart", testutil.ToFloat64(e.requests.WithLabelValues(PhaseWarmup, OutcomeSuccess)), 1, "phase label"},
		{"lag", testutil.ToFloat64(e.lag.WithLabelValues(PhaseMain)), 0.05, "last record with an intended time: 1.0-0.9-0.05"},
	}
	for _, c := range counter {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s (%s) = %v, want %v", c.name, c.label, c.got, c.want)
		}
	}

	hist := []struct {
		name  string
		count uint64
		sum   float64
	}{
		{"llmbench_ttft_seconds", 3, 0.2 + 0.45 + 1.2},
		{"llmbench_e2el_seconds", 3, 0.3 + 0.45 + 2.2},
		// vLLM's TPOT: (E2EL-TTFT)/(n-1) for n > 1 only.
		{"llmbench_tpot_seconds", 2, (0.3-0.2)/4 + (2.2-1.2)/2},
		{"llmbench_itl_seconds", 6, 0.01 + 0.02 + 0.03 + 0.04 + 0.5 + 0.5},
		{"llmbench_client_queue_seconds", 6, 0.05 + 0.01},
	}
	for _, h := range hist {
		m := gatherOne(t, e, h.name, PhaseMain)
		got := m.GetHistogram()
		if got.GetSampleCount() != h.count || math.Abs(got.GetSampleSum()-h.sum) > 1e-12 {
			t.Errorf("%s: count %d sum %v, want %d and %v", h.name, got.GetSampleCount(), got.GetSampleSum(), h.count, h.sum)
		}
	}
	// Native buckets ride along (schema 3 ≈ factor 1.09 ≤ 1.1).
	if nh := gatherOne(t, e, "llmbench_ttft_seconds", PhaseMain).GetHistogram(); nh.GetSchema() != 3 || len(nh.GetPositiveSpan()) == 0 {
		t.Errorf("native histogram: schema %d, %d spans; want schema 3 and buckets", nh.GetSchema(), len(nh.GetPositiveSpan()))
	}
	// Bucket placement: TTFTs 0.2, 0.45, 1.2 → le=0.2 holds 1 (upper
	// bounds are inclusive), le=0.5 holds 2, le=1.25 all 3.
	want := map[float64]uint64{0.15: 0, 0.2: 1, 0.4: 1, 0.5: 2, 1: 2, 1.25: 3, 60: 3}
	for _, b := range gatherOne(t, e, "llmbench_ttft_seconds", PhaseMain).GetHistogram().GetBucket() {
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("ttft bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
}

func TestCountTokensUsedWithoutUsage(t *testing.T) {
	t.Parallel()
	words := func(s string) int { return len(strings.Fields(s)) }
	cases := []struct {
		name string
		cfg  Config
		want float64
	}{
		{"tokenizer counts the text", Config{CountTokens: words}, 4},
		{"no tokenizer: vLLM's fallback 1", Config{}, 1},
	}
	for _, c := range cases {
		e := New(c.cfg)
		r := record.Record{Success: true, GeneratedText: "one two three four", TTFT: 0.1, Latency: 0.4}
		e.Observe("s1", &r)
		if got := testutil.ToFloat64(e.outTokens.WithLabelValues("s1")); got != c.want {
			t.Errorf("%s: output tokens %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLint(t *testing.T) {
	t.Parallel()
	e := New(Config{RunID: "r", Backend: "openai-chat", Model: "m", ProcessMetrics: true})
	recs := records()
	for i := range recs {
		e.Observe(PhaseMain, &recs[i])
	}
	e.RequestStarted(PhaseMain)
	e.SetTargetRate(PhaseMain, math.Inf(1))
	e.SetConcurrency(PhaseMain, 4)
	e.SetDispatchLag(PhaseMain, 0.001)
	e.SetSelfCheck(map[string]float64{"cpu_utilization": 0.5}, "valid")
	problems, err := testutil.GatherAndLint(e.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestSelfCheck(t *testing.T) {
	t.Parallel()
	e := New(Config{})
	if v := testutil.ToFloat64(e.valid); v != 1 {
		t.Errorf("client_valid before any check = %v, want 1", v)
	}
	e.SetSelfCheck(map[string]float64{"cpu_utilization": 0.97, "dispatch_lag_p99_seconds": 0.02}, "degraded")
	if v := testutil.ToFloat64(e.valid); v != 0 {
		t.Errorf("client_valid when degraded = %v, want 0", v)
	}
	if v := testutil.ToFloat64(e.verdict.WithLabelValues("degraded")); v != 1 {
		t.Errorf("verdict degraded = %v, want 1", v)
	}
	e.SetSelfCheck(map[string]float64{"cpu_utilization": 0.4}, "valid")
	if n := testutil.CollectAndCount(e.check); n != 1 {
		t.Errorf("%d check series after a check disappeared, want 1", n)
	}
	if v := testutil.ToFloat64(e.verdict.WithLabelValues("degraded")); v != 0 {
		t.Errorf("verdict degraded after valid = %v, want 0", v)
	}
}

func TestInFlight(t *testing.T) {
	t.Parallel()
	e := New(Config{})
	e.RequestStarted("main")
	e.RequestStarted("main")
	e.RequestFinished("main")
	if v := testutil.ToFloat64(e.inFlight.WithLabelValues("main")); v != 1 {
		t.Errorf("in flight = %v, want 1", v)
	}
	e.SetInFlight("main", 7)
	if v := testutil.ToFloat64(e.inFlight.WithLabelValues("main")); v != 7 {
		t.Errorf("in flight = %v, want 7", v)
	}
}

func TestBuckets(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		b        []float64
		lo, hi   float64
		nBuckets int
	}{
		{"ttft", TTFTBuckets, 1e-3, 60, 49},
		{"token", TokenBuckets, 1e-4, 10, 51},
		{"e2el", E2ELBuckets, 1e-2, 600, 49},
		{"queue", QueueBuckets, 1e-4, 600, 69},
	}
	for _, c := range cases {
		if c.b[0] != c.lo || c.b[len(c.b)-1] != c.hi || len(c.b) != c.nBuckets {
			t.Errorf("%s: %v..%v in %d buckets, want %v..%v in %d (update the doc comment)",
				c.name, c.b[0], c.b[len(c.b)-1], len(c.b), c.lo, c.hi, c.nBuckets)
		}
		for i := 1; i < len(c.b); i++ {
			if r := c.b[i] / c.b[i-1]; r <= 1 || r > 4.0/3+1e-9 {
				t.Errorf("%s: bounds %v and %v differ by ×%.3f, want (1, 4/3]", c.name, c.b[i-1], c.b[i], r)
			}
		}
	}
	if TTFTBuckets[5] != 0.003 {
		t.Errorf("bounds must print short: got %v, want 0.003", TTFTBuckets[5])
	}
}

// gatherOne returns the metric of family name with label phase=phase.
func gatherOne(t *testing.T, e *Exporter, name, phase string) *dto.Metric {
	t.Helper()
	mfs, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "phase" && lp.GetValue() == phase {
					return m
				}
			}
		}
	}
	t.Fatalf("no %s{phase=%q}", name, phase)
	return nil
}

// TestMetricNames: MetricNames lists exactly what /metrics exposes once
// every series exists.
func TestMetricNames(t *testing.T) {
	t.Parallel()
	e := New(Config{})
	recs := records()
	for i := range recs {
		e.Observe(PhaseMain, &recs[i])
	}
	e.SetInFlight(PhaseMain, 1)
	e.SetTargetRate(PhaseMain, 1)
	e.SetConcurrency(PhaseMain, 1)
	e.SetSelfCheck(map[string]float64{"cpu": 1}, "valid")
	mfs, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var gathered []string
	for _, mf := range mfs {
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			gathered = append(gathered, mf.GetName()+"_bucket", mf.GetName()+"_count", mf.GetName()+"_sum")
			continue
		}
		gathered = append(gathered, mf.GetName())
	}
	slices.Sort(gathered)
	if got := e.MetricNames(); !slices.Equal(got, gathered) {
		t.Errorf("MetricNames() = %q\ngathered      %q", got, gathered)
	}
}

// TestErrorClassesFromZero: a phase exposes llmbench_request_errors_total
// at 0 for every known class before its first error, so a dashboard's
// error panel shows 0, not "No data".
func TestErrorClassesFromZero(t *testing.T) {
	t.Parallel()
	e := New(Config{RunID: "r1"})
	ok := records()[0]
	e.OnDone(PhaseMain)(&ok)
	mfs, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != Namespace+"_request_errors_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "error_class" {
					got[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	for _, c := range record.Classes {
		if v, ok := got[c]; !ok || v != 0 {
			t.Errorf("error_class %q: %v (exposed %v), want a series at 0", c, v, ok)
		}
	}
}

// TestGoodIsMetricsRule: the good counters apply internal/metrics' goodput
// rule, vLLM's `slo >= value`: equality meets, a one-token output has
// TPOT 0, and a NaN value does not meet (the exporter's own copy of the
// rule, `slo < value` fails, counted a NaN as good).
func TestGoodIsMetricsRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		slo  map[string]float64
		rec  record.Record
		good float64
	}{
		{"equality meets", map[string]float64{"ttft": 250},
			record.Record{Success: true, OutputTokens: intp(3), TTFT: 0.25, Latency: 0.5}, 1},
		{"one token has tpot 0", map[string]float64{"tpot": 0},
			record.Record{Success: true, OutputTokens: intp(1), TTFT: 0.3, Latency: 0.3}, 1},
		{"tpot over", map[string]float64{"tpot": 100},
			record.Record{Success: true, OutputTokens: intp(3), TTFT: 0.1, Latency: 0.5}, 0},
		{"unknown key ignored", map[string]float64{"itl": 0},
			record.Record{Success: true, OutputTokens: intp(3), TTFT: 0.1, Latency: 0.5}, 1},
		{"NaN e2el misses", map[string]float64{"e2el": 1000},
			record.Record{Success: true, OutputTokens: intp(3), TTFT: 0.1, Latency: math.NaN()}, 0},
	}
	for _, c := range cases {
		e := New(Config{Goodput: c.slo})
		e.Observe(PhaseMain, &c.rec)
		if got := testutil.ToFloat64(e.goodReqs.WithLabelValues(PhaseMain)); got != c.good {
			t.Errorf("%s: good = %v, want %v", c.name, got, c.good)
		}
	}
}
