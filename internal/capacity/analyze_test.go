package capacity

import (
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

func analyze(t *testing.T, kind Kind, sla string, specs ...spec) *Sweep {
	t.Helper()
	s, err := Analyze(kind, mustSLA(t, sla), rowsOf(kind, 0, specs...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fp(p *float64) string {
	if p == nil {
		return "null"
	}
	return f64(*p)
}

// TestAnalyzeIssueExample checks the figures the golden file shows, so a
// wrong golden cannot pass unnoticed.
func TestAnalyzeIssueExample(t *testing.T) {
	t.Parallel()
	s := analyze(t, Concurrency, "p99_ttft_ms<500,p99_itl_ms<30", a100...)
	if gain := s.Steps[7].OutputThroughput / s.Steps[0].OutputThroughput; gain < 26 || gain > 28 {
		t.Errorf("1 -> 100 throughput gain %.1f×, the example needs ~27×", gain)
	}
	if sat := s.Saturation; sat == nil || sat.Load != 100 || sat.OutputThroughput != 3100 {
		t.Fatalf("saturation %+v, want 100 at 3100 tok/s", sat)
	}
	ml := s.MaxLoadUnderSLA
	if fp(ml.Load) != "100" || *ml.Binding != "p99_ttft_ms" || fp(ml.FirstFailingLoad) != "128" {
		t.Errorf("max load %s binding %v first failing %s, want 100, p99_ttft_ms, 128", fp(ml.Load), *ml.Binding, fp(ml.FirstFailingLoad))
	}
	for _, want := range []string{"meets the SLA up to 100 concurrent users", "p99 TTFT is the binding limit", "saturates at ~3,100 tok/s at 100", "scale out at 80 % of that load: a Kubernetes HPA target of 80 requests in flight per pod, or a SageMaker InvocationsPerInstance target of 1,163 per minute"} {
		if !strings.Contains(s.Verdict, want) {
			t.Errorf("verdict %q lacks %q", s.Verdict, want)
		}
	}
	if !s.Stop() {
		t.Error("knee confirmed and SLA failed, yet Stop() is false")
	}
	if p, f, ok := s.RefineBounds(); !ok || p != 100 || f != 128 {
		t.Errorf("refine bounds %v, %v, %v; want 100, 128", p, f, ok)
	}
	// ITL binds when TTFT has room: the worst violation wins.
	s = analyze(t, Concurrency, "p99_ttft_ms<5000,p99_itl_ms<30", a100...)
	if b := s.MaxLoadUnderSLA.Binding; b == nil || *b != "p99_itl_ms" {
		t.Errorf("binding %v, want p99_itl_ms", b)
	}
}

// TestStop: --stop-when-saturated needs a confirmed knee and, with an
// SLA, a failure.
func TestStop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		sla   string
		specs []spec
		stop  bool
	}{
		{"knee seen, SLA failed", "p99_ttft_ms<500", a100[:9], true},
		{"knee not yet confirmed", "p99_ttft_ms<500", a100[:8], false},
		{"knee seen, SLA still met", "p99_ttft_ms<5000", a100, false},
		{"no SLA: the knee alone", "", a100[:9], true},
		{"SLA failed, throughput still growing", "p99_ttft_ms<100", a100[:5], false},
	} {
		if got := analyze(t, Concurrency, tt.sla, tt.specs...).Stop(); got != tt.stop {
			t.Errorf("%s: Stop() = %v, want %v", tt.name, got, tt.stop)
		}
	}
}

// TestSaturationNeedsTailRise: a flat throughput whose latency does not
// climb is not a knee (the ladder may just be noisy at a plateau).
func TestSaturationNeedsTailRise(t *testing.T) {
	t.Parallel()
	s := analyze(t, RequestRate, "",
		spec{load: 1, tput: 1000, p99TTFT: 100, p99ITL: 10, e2elMean: 1000},
		spec{load: 2, tput: 1010, p99TTFT: 110, p99ITL: 11, e2elMean: 1100})
	if s.Saturation != nil {
		t.Errorf("saturation %+v without a rising tail", s.Saturation)
	}
	// Throughput that falls after its peak (overload): the knee is the
	// peak region, confirmed by the tail.
	s = analyze(t, RequestRate, "",
		spec{load: 5, tput: 1000, p99TTFT: 100, p99ITL: 10, e2elMean: 1000},
		spec{load: 10, tput: 2000, p99TTFT: 150, p99ITL: 12, e2elMean: 1000},
		spec{load: 20, tput: 1500, p99TTFT: 4000, p99ITL: 30, e2elMean: 1000})
	if sat := s.Saturation; sat == nil || sat.Load != 10 || strings.Contains(sat.Evidence, "may lie lower") {
		t.Errorf("saturation %+v, want 10 req/s", sat)
	}
	// Saturated from the first step: say the knee may be lower.
	s = analyze(t, Concurrency, "", a100[7:]...)
	if sat := s.Saturation; sat == nil || sat.Load != 100 || !strings.Contains(sat.Evidence, "the knee may lie lower") {
		t.Errorf("saturation %+v, want 100 with a caveat", sat)
	}
}

// TestNextProbeBisection: bisecting a server whose true limit is 96
// users, from the ladder's 64 (pass) and 128 (fail), lands on exactly 96
// within MaxRefineSteps probes.
func TestNextProbeBisection(t *testing.T) {
	t.Parallel()
	pass, fail := 64.0, 128.0
	probes := 0
	for {
		load, ok := NextProbe(pass, fail, Concurrency)
		if !ok {
			break
		}
		if load != math.Trunc(load) || load <= pass || load >= fail {
			t.Fatalf("probe %v outside (%v, %v) or not whole", load, pass, fail)
		}
		probes++
		if load <= 96 {
			pass = load
		} else {
			fail = load
		}
	}
	if pass != 96 || fail != 97 || probes > MaxRefineSteps {
		t.Errorf("ended at pass %v fail %v after %d probes, want 96, 97 within %d", pass, fail, probes, MaxRefineSteps)
	}
}

func TestNextProbe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		pass, fail float64
		kind       Kind
		load       float64
		ok         bool
	}{
		{64, 128, Concurrency, 96, true},
		{0, 1, Concurrency, 0, false},     // the first step (1) failed: nothing below it
		{0, 8, Users, 4, true},            // from nothing up to the first failure
		{99, 100, Users, 0, false},        // adjacent
		{100, 64, Concurrency, 0, false},  // inverted
		{2, 4, RequestRate, 3, true},      // midpoint
		{1, 1.7, RequestRate, 1.35, true}, // three significant digits
		{9.9, 10, RequestRate, 0, false},  // within 2 % of 10
		{0, 0.5, RequestRate, 0.25, true}, // rates below 1
		{3, 4, Concurrency, 0, false},
		{3, 5, Concurrency, 4, true},
	} {
		load, ok := NextProbe(tt.pass, tt.fail, tt.kind)
		if ok != tt.ok || (ok && math.Abs(load-tt.load) > 1e-12) {
			t.Errorf("NextProbe(%v, %v, %s) = %v, %v; want %v, %v", tt.pass, tt.fail, tt.kind, load, ok, tt.load, tt.ok)
		}
	}
}

// TestAllFailedStep: a step where nothing succeeded has zeros for its
// latencies (vLLM's convention); they must not pass a latency SLA.
func TestAllFailedStep(t *testing.T) {
	t.Parallel()
	s := analyze(t, Concurrency, "p99_ttft_ms<500",
		spec{load: 1, tput: 100, p99TTFT: 100, p99ITL: 10},
		spec{load: 2, tput: 0, p99TTFT: 0, p99ITL: 0, failed: 100})
	r := s.Steps[1]
	if *r.SLAPass || r.SLATerms[0].Actual != nil {
		t.Errorf("all-failed step: sla_pass %v, actual %v; want a failure, not reported", *r.SLAPass, r.SLATerms[0].Actual)
	}
	if fp(s.MaxLoadUnderSLA.Load) != "1" || !strings.Contains(s.Verdict, "not reported") {
		t.Errorf("max load %s, verdict %q", fp(s.MaxLoadUnderSLA.Load), s.Verdict)
	}
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	rows := rowsOf(Concurrency, 0,
		spec{load: 8, tput: 800, p99TTFT: 100, p99ITL: 10},
		spec{load: 8, tput: 1000, p99TTFT: 140, p99ITL: 10, lagP99: 30},
		spec{load: 8, tput: 900, p99TTFT: 120, p99ITL: 10, failed: 10})
	r, err := Aggregate(rows)
	if err != nil {
		t.Fatal(err)
	}
	sp := r.Spread["output_throughput"]
	if r.Runs != 3 || r.OutputThroughput != 900 || sp.Min != 800 || sp.Max != 1000 || math.Abs(sp.Std-math.Sqrt(20000.0/3)) > 1e-9 {
		t.Errorf("runs %d, throughput %v spread %+v", r.Runs, r.OutputThroughput, sp)
	}
	if r.P99TTFTMs != 120 || r.Completed != 290 || r.Failed != 10 {
		t.Errorf("p99 TTFT %v, completed %d, failed %d; want 120, 290, 10", r.P99TTFTMs, r.Completed, r.Failed)
	}
	if !r.HarnessLimited || !strings.HasPrefix(r.HarnessReason, "run 2:") {
		t.Errorf("harness %v %q: one limited run limits the step", r.HarnessLimited, r.HarnessReason)
	}
	if r.ResultFile != "step-8.json step-8.json step-8.json" {
		t.Errorf("result files %q", r.ResultFile)
	}
	if _, err := Aggregate(append(rows, rowsOf(Concurrency, 0, spec{load: 9, tput: 1})...)); err == nil {
		t.Error("rows of different loads aggregated")
	}
	if _, err := Analyze(Users, nil, rows); err == nil {
		t.Error("concurrency rows accepted in a users sweep")
	}
}

// TestLittlesLaw: the ratio is throughput × (E2EL + think) over the
// expected in-flight count; open loop has no reference without a sample.
func TestLittlesLaw(t *testing.T) {
	t.Parallel()
	sum := synthSummary(spec{load: 100, tput: 2560, p99TTFT: 100, p99ITL: 10, e2elMean: 3000}, Users, 0) // 20 req/s
	for _, tt := range []struct {
		name  string
		step  Step
		ratio string
		off   bool
	}{
		{"users with 2 s think: 20 × 5 = 100", Step{Load: 100, Kind: Users, MeanThinkS: 2}, "1", false},
		{"concurrency 100: 20 × 3 = 60", Step{Load: 100, Kind: Concurrency}, "0.6", true},
		{"sampled in flight wins", Step{Load: 100, Kind: Concurrency, MeanInFlight: ptr(60.0)}, "1", false},
		{"a worker's share: 100 users, 1 of 5 workers", Step{Load: 500, Kind: Users, MeanThinkS: 2, Share: 0.2}, "1", false},
		{"a worker's share, concurrency: 20 × 3 = 60 of 300 × 0.2", Step{Load: 300, Kind: Concurrency, Share: 0.2}, "1", false},
		{"open loop without a sample", Step{Load: 20, Kind: RequestRate}, "null", false},
	} {
		r := RowFrom(sum, tt.step)
		if got := fp(r.LittlesLawRatio); got != tt.ratio || r.LittlesLawOff != tt.off {
			t.Errorf("%s: ratio %s off %v, want %s %v", tt.name, got, r.LittlesLawOff, tt.ratio, tt.off)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestRowFromSummarize: a Summary from real records gives every key the
// SLA may name, and the CPU limit marks the step harness-limited.
func TestRowFromSummarize(t *testing.T) {
	t.Parallel()
	n := 3
	var recs []record.Record
	for i := range 4 {
		recs = append(recs, record.Record{Index: i, Success: true, PromptLen: 5, OutputTokens: &n, TTFT: 0.1,
			ITL: []float64{0.02, 0.02}, Latency: 0.14, StartTime: float64(i) * 0.1, FinishReason: "stop"})
	}
	recs = append(recs, record.Record{Index: 4, Error: "boom"})
	sum, err := metrics.Summarize(recs, metrics.Params{Duration: 1, Percentiles: []float64{50, 99.9},
		PercentileMetrics: []string{metrics.TTFT, metrics.TPOT, metrics.ITL, metrics.E2EL}})
	if err != nil {
		t.Fatal(err)
	}
	r := RowFrom(sum, Step{Load: 2, Kind: Concurrency, ClientCPU: ptr(0.9)})
	for _, k := range []string{"mean_ttft_ms", "p99.9_itl_ms", "median_e2el_ms", "std_tpot_ms", "p1_per_user_tps",
		"p5_per_user_tps", "median_per_user_tps", "system_output_tps", "token_goodput", "error_rate"} {
		if _, ok := r.Value(k); !ok {
			t.Errorf("key %s missing from the row", k)
		}
	}
	if r.ErrorRate != 0.2 || math.Abs(r.MeanTTFTMs-100) > 1e-9 || math.Abs(r.MeanPerUserTPS-3/0.04) > 1e-6 || r.P99TTFTMs != 0 {
		t.Errorf("error rate %v, mean TTFT %v, per-user %v, p99 TTFT %v (not reported: 0)", r.ErrorRate, r.MeanTTFTMs, r.MeanPerUserTPS, r.P99TTFTMs)
	}
	if r.DispatchLagP99Ms != nil || !r.HarnessLimited || !strings.Contains(r.HarnessReason, "client CPU 90 %") {
		t.Errorf("lag %v, harness %v %q", r.DispatchLagP99Ms, r.HarnessLimited, r.HarnessReason)
	}
}

func TestVerdictEdges(t *testing.T) {
	t.Parallel()
	if s, _ := Analyze(Concurrency, nil, nil); s.Verdict != "no steps were run." || len(s.Steps) != 0 {
		t.Errorf("empty sweep: %q", s.Verdict)
	}
	limited := rowsOf(Concurrency, 0, spec{load: 1, tput: 100, p99TTFT: 10, p99ITL: 10, lagP99: 50})
	s, _ := Analyze(Concurrency, mustSLA(t, "p99_ttft_ms<500"), limited)
	if !strings.Contains(s.Verdict, "every step was limited by the client") || s.MaxLoadUnderSLA.Load != nil {
		t.Errorf("all harness-limited: %q, max load %s", s.Verdict, fp(s.MaxLoadUnderSLA.Load))
	}
}

func TestNum(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{3100: "3,100", 3149.6: "3,150", 1234567: "1,234,567", 55.24: "55.2", 0.046: "0.05", -1500: "-1,500", 100: "100"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}
