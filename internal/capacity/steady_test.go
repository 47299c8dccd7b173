package capacity

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// steadyOf is a steady_state whose window sustained out tok/s and saw
// 90 of the step's 100 requests complete.
func steadyOf(out, windowS float64) *metrics.SteadyState {
	return &metrics.SteadyState{Window: metrics.SteadyStateWindow{DurationS: windowS, RequestsCompletedInWindow: 90, RequestsTotal: 100},
		RequestThroughput: out / outLen, OutputThroughput: out, TotalTokenThroughput: 3 * out}
}

// TestSteadyThroughputDecidesTheKnee: a closed-loop row's throughputs
// become its steady window's, the whole run's are kept beside them, and
// the saturation analysis reads the steady ones. Whole-run figures that
// still grow 2x per step (the ramp and drain of short steps diluting
// them) hide a server that stopped growing at 4; the steady windows show
// it.
func TestSteadyThroughputDecidesTheKnee(t *testing.T) {
	t.Parallel()
	rows := rowsOf(Concurrency, 0,
		spec{load: 1, tput: 100, p99TTFT: 40, p99ITL: 9}, spec{load: 2, tput: 190, p99TTFT: 40, p99ITL: 9},
		spec{load: 4, tput: 360, p99TTFT: 40, p99ITL: 9}, spec{load: 8, tput: 700, p99TTFT: 200, p99ITL: 9},
		spec{load: 16, tput: 1300, p99TTFT: 800, p99ITL: 9})
	whole, err := Analyze(Concurrency, nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	steady := []float64{110, 215, 400, 405, 404}
	for i := range rows {
		rows[i].SteadyThroughput(steadyOf(steady[i], 20))
	}
	an, err := Analyze(Concurrency, nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range an.Steps {
		if r.OutputThroughput != steady[i] || r.Metrics["output_throughput"] != steady[i] || r.RequestThroughput != steady[i]/outLen ||
			r.ThroughputFrom != ThroughputSteady || *r.SteadyWindowS != 20 || r.RunThroughput["output_throughput"] != whole.Steps[i].OutputThroughput {
			t.Errorf("load %v: out %v (%s, window %v, whole run %v); want the steady %v beside the whole run's %v",
				r.Load, r.OutputThroughput, r.ThroughputFrom, r.SteadyWindowS, r.RunThroughput, steady[i], whole.Steps[i].OutputThroughput)
		}
	}
	if whole.Saturation != nil {
		t.Errorf("whole-run figures: saturation at %v, want none (they double every step)", whole.Saturation.Load)
	}
	if an.Saturation == nil || an.Saturation.Load != 4 {
		t.Errorf("steady figures: saturation %+v, want at 4", an.Saturation)
	}
	want := "throughput over each step's steady window (vLLM's steady_state); ramp and drain excluded"
	if !slices.Contains(an.Notes, want) || slices.Contains(whole.Notes, want) {
		t.Errorf("notes %q; want %q (and not in %q)", an.Notes, want, whole.Notes)
	}
}

// TestSteadyThroughputWithoutWindow: no window, or one where fewer than
// half the requests completed, keeps the whole run's figures and says
// "run"; runs of one load that differ are "mixed", and the note names
// the loads without a usable window.
func TestSteadyThroughputWithoutWindow(t *testing.T) {
	t.Parallel()
	rows := rowsOf(Concurrency, 0, spec{load: 1, tput: 100, p99TTFT: 40, p99ITL: 9}, spec{load: 2, tput: 190, p99TTFT: 40, p99ITL: 9},
		spec{load: 2, tput: 200, p99TTFT: 40, p99ITL: 9})
	rows[0].SteadyThroughput(nil)
	rows[1].SteadyThroughput(steadyOf(210, 10))
	oneWave := steadyOf(900, 0.1) // 32 requests at 32: from the last start to the first end
	oneWave.Window.RequestsCompletedInWindow, oneWave.Window.RequestsTotal = 1, 32
	rows[2].SteadyThroughput(oneWave)
	half := steadyOf(900, 0.1)
	half.Window.RequestsCompletedInWindow, half.Window.RequestsTotal = 16, 32
	if !SteadyUsable(half) || SteadyUsable(oneWave) || SteadyUsable(nil) {
		t.Errorf("usable: half %v, one wave %v, nil %v; want true, false, false", SteadyUsable(half), SteadyUsable(oneWave), SteadyUsable(nil))
	}
	if rows[0].ThroughputFrom != ThroughputRun || rows[0].OutputThroughput != 100 || rows[0].RunThroughput != nil {
		t.Errorf("no window: %s %v %v", rows[0].ThroughputFrom, rows[0].OutputThroughput, rows[0].RunThroughput)
	}
	an, err := Analyze(Concurrency, nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	two := an.Steps[1]
	if two.ThroughputFrom != ThroughputMixed || two.OutputThroughput != 205 || *two.SteadyWindowS != 10 || two.RunThroughput["output_throughput"] != 190 {
		t.Errorf("load 2: %s, out %v, window %v, whole run %v; want mixed, 205 (210 and 200), 10, 190", two.ThroughputFrom, two.OutputThroughput, *two.SteadyWindowS, two.RunThroughput)
	}
	if n := steadyNote(an.Steps); !strings.HasSuffix(n, "(concurrency 1, 2: no usable window in every run, the whole run's)") {
		t.Errorf("note %q", n)
	}
}

// TestDeciding: --runs auto's deciding figures.
func TestDeciding(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sla  string
		want []string
	}{
		{"", DefaultDeciding},
		{"error_rate<0.05", DefaultDeciding},
		{"p99_ttft_ms<500,p99_itl_ms<30,error_rate<=0.01,p99_ttft_ms<400", []string{"p99_ttft_ms", "p99_itl_ms"}},
	} {
		if got := mustSLA(t, tt.sla).Deciding(); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.sla, got, tt.want)
		}
	}
	got := GoodputDeciding(map[string]float64{"e2el": 900, "ttft": 500})
	if want := []string{"request_goodput", "mean_ttft_ms", "mean_e2el_ms"}; !slices.Equal(got, want) {
		t.Errorf("goodput: %q, want %q", got, want)
	}
}

// TestConvergenceNotes: the sweep's notes say how many runs each step
// took under --runs auto and which did not converge, and the aggregated
// row keeps its last run's record.
func TestConvergenceNotes(t *testing.T) {
	t.Parallel()
	rows := rowsOf(Concurrency, 0, spec{load: 1, tput: 100, p99TTFT: 40, p99ITL: 9}, spec{load: 1, tput: 101, p99TTFT: 40, p99ITL: 9},
		spec{load: 1, tput: 99, p99TTFT: 40, p99ITL: 9}, spec{load: 2, tput: 150, p99TTFT: 40, p99ITL: 9}, spec{load: 2, tput: 250, p99TTFT: 40, p99ITL: 9},
		spec{load: 2, tput: 200, p99TTFT: 40, p99ITL: 9})
	w := 0.1
	rows[2].Convergence = &stats.Convergence{Mode: "auto", CIWidth: 0.1, MaxRuns: 3, Runs: 3, Converged: true,
		Statistics: []stats.ConvergedStat{{Key: "output_throughput", RelativeWidth: new(float64), Converged: true}}}
	rows[5].Convergence = &stats.Convergence{Mode: "auto", CIWidth: 0.1, MaxRuns: 3, Runs: 3,
		Statistics: []stats.ConvergedStat{{Key: "output_throughput", RelativeWidth: &w}}}
	an, err := Analyze(Concurrency, nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	if c := an.Steps[1].Convergence; c == nil || c != rows[5].Convergence {
		t.Errorf("load 2's convergence %v, want its last run's", c)
	}
	want := []string{"--runs auto (--ci-width 0.1): runs per concurrency: 1 3, 2 3",
		"2 concurrent users: the 95 % interval did not converge in 3 runs (--max-runs 3): output_throughput 10.0 % (needs < 10 %)"}
	if got := an.Notes[len(an.Notes)-2:]; !slices.Equal(got, want) {
		t.Errorf("notes end %q\nwant %q", got, want)
	}
}

// TestLittlesLawUsesTheWholeRun: Little's law sets the whole run's
// request throughput against its mean E2EL and in-flight count; a steady
// window's request throughput (vLLM's: completions in the window over
// its length, below the run's when requests end in waves) would call a
// step that kept its users in flight "off". Measured: 40 requests at
// concurrency 8 on the simulator, whole run 8.27 req/s × 0.967 s = 8.0
// in flight, steady window 6.65 req/s (ratio 0.80, flagged before).
func TestLittlesLawUsesTheWholeRun(t *testing.T) {
	t.Parallel()
	rows := rowsOf(Concurrency, 0, spec{load: 8, tput: 8.27 * outLen, p99TTFT: 60, p99ITL: 30, e2elMean: 967})
	r := &rows[0]
	before := *r.LittlesLawRatio
	r.SteadyThroughput(steadyOf(6.65*outLen, 4.8))
	if r.RequestThroughput != 6.65 || r.ThroughputFrom != ThroughputSteady {
		t.Fatalf("row: %v req/s from %q, want the steady 6.65", r.RequestThroughput, r.ThroughputFrom)
	}
	if r.LittlesLawRatio == nil || *r.LittlesLawRatio != before || r.LittlesLawOff {
		t.Errorf("Little's law ratio %v (off %v), want the whole run's %v, not off", fp(r.LittlesLawRatio), r.LittlesLawOff, before)
	}
}
