package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// ssReq is a successful request: start, latency, TTFT, gaps, prompt
// length; its output length is len(gaps)+1 unless out says otherwise.
func ssReq(start, latency, ttft float64, gaps []float64, prompt int) record.Record {
	return record.Record{Success: true, StartTime: start, Latency: latency, TTFT: ttft, ITL: gaps, PromptLen: prompt}
}

// ssOut is the output lengths of recs: one token per chunk, 0 for a
// record without chunks.
func ssOut(recs []record.Record) []int {
	out := make([]int, len(recs))
	for i, r := range recs {
		if r.Success && (r.TTFT > 0 || len(r.ITL) > 0) {
			out[i] = len(r.ITL) + 1
		}
	}
	return out
}

func f64(v float64) *float64 { return &v }

// TestSteadyStateWindow ports the window cases of vLLM's Rust client
// (steady_state.rs tests) and adds the threshold_abs vector.
func TestSteadyStateWindow(t *testing.T) {
	t.Parallel()
	ramp := func(n int, step, latency float64) []record.Record {
		var recs []record.Record
		for i := range n {
			recs = append(recs, ssReq(float64(i)*step, latency, 0, nil, 0))
		}
		return recs
	}
	trapezoid := append(ramp(10, 1, 30), ssReq(15, 5, 0, nil, 0))
	failed := ssReq(0, 1, 0, nil, 0)
	failed.Success = false
	tests := []struct {
		name      string
		recs      []record.Record
		target    int
		threshold float64
		minWindow float64
		duration  float64
		rateInf   bool
		want      *SteadyStateWindow // nil = no steady state
		warn      bool
	}{
		{name: "trapezoid: opens at the 10th start, closes at the first end", recs: trapezoid, target: 10, threshold: 1, minWindow: 5, duration: 30, rateInf: true,
			want: &SteadyStateWindow{StartS: 9, EndS: 30, DurationS: 21, TargetConcurrency: 10, Threshold: 1, ThresholdAbs: 10, ObservedPeak: 11,
				RequestsStartedInWindow: 2, RequestsCompletedInWindow: 1, RequestsTotal: 11}},
		{name: "no target concurrency: none", recs: ramp(1, 0, 1), target: 0, threshold: 0.95, minWindow: 1, duration: 10, rateInf: true},
		{name: "a finite rate: none (vLLM's closed-loop gate)", recs: trapezoid, target: 10, threshold: 1, minWindow: 5, duration: 30, rateInf: false},
		{name: "serial requests never reach the threshold", recs: ramp(5, 10, 1), target: 5, threshold: 0.95, minWindow: 1, duration: 100, rateInf: true},
		{name: "all failed", recs: []record.Record{failed}, target: 1, threshold: 1, minWindow: 0.1, duration: 10, rateInf: true},
		{name: "threshold 1 of 2 needs both in flight", recs: []record.Record{ssReq(0, 5, 0, nil, 0), ssReq(1, 5, 0, nil, 0)}, target: 2, threshold: 1, minWindow: 0.1, duration: 10, rateInf: true,
			want: &SteadyStateWindow{StartS: 1, EndS: 5, DurationS: 4, TargetConcurrency: 2, Threshold: 1, ThresholdAbs: 2, ObservedPeak: 2, RequestsStartedInWindow: 1, RequestsTotal: 2}},
		{name: "an end and a start at one instant: the end goes first", recs: []record.Record{ssReq(0, 5, 0, nil, 0), ssReq(2, 3, 0, nil, 0), ssReq(5, 2, 0, nil, 0)}, target: 2, threshold: 1, minWindow: 0.1, duration: 20, rateInf: true,
			want: &SteadyStateWindow{StartS: 2, EndS: 5, DurationS: 3, TargetConcurrency: 2, Threshold: 1, ThresholdAbs: 2, ObservedPeak: 2, RequestsStartedInWindow: 1, RequestsTotal: 3}},
		{name: "a short plateau warns", recs: ramp(10, 0.1, 1), target: 10, threshold: 1, minWindow: 5, duration: 10, rateInf: true, warn: true,
			want: &SteadyStateWindow{StartS: 0.9, EndS: 1, DurationS: 0.1, TargetConcurrency: 10, Threshold: 1, ThresholdAbs: 10, ObservedPeak: 10, RequestsStartedInWindow: 1, RequestsTotal: 10}},
		{name: "max_concurrency 8 at 0.95: threshold_abs = ceil(7.6) = 8", recs: ramp(8, 0.5, 20), target: 8, threshold: 0.95, minWindow: 1, duration: 25, rateInf: true,
			want: &SteadyStateWindow{StartS: 3.5, EndS: 20, DurationS: 16.5, TargetConcurrency: 8, Threshold: 0.95, ThresholdAbs: 8, ObservedPeak: 8, RequestsStartedInWindow: 1, RequestsTotal: 8}},
		{name: "threshold 0.5 of 8 opens at 4", recs: ramp(8, 0.5, 20), target: 8, threshold: 0.5, minWindow: 1, duration: 25, rateInf: true,
			want: &SteadyStateWindow{StartS: 1.5, EndS: 22, DurationS: 20.5, TargetConcurrency: 8, Threshold: 0.5, ThresholdAbs: 4, ObservedPeak: 8, RequestsStartedInWindow: 5, RequestsCompletedInWindow: 4, RequestsTotal: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ss, err := SteadyStateOf(tt.recs, ssOut(tt.recs), SteadyStateOptions{MaxConcurrency: tt.target, RateFinite: !tt.rateInf,
				Threshold: tt.threshold, MinWindow: f64(tt.minWindow), Duration: tt.duration})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if ss != nil {
					t.Fatalf("got a window %+v, want none", ss.Window)
				}
				return
			}
			if ss == nil {
				t.Fatal("no window, want one")
			}
			got := ss.Window
			if (got.Warning != nil) != tt.warn {
				t.Errorf("warning %v, want one: %v", got.Warning, tt.warn)
			}
			got.Warning = nil
			for _, f := range []*float64{&got.StartS, &got.EndS, &got.DurationS} {
				*f = math.Round(*f*1e9) / 1e9
			}
			if got != *tt.want {
				t.Errorf("window\n got %+v\nwant %+v", got, *tt.want)
			}
		})
	}
}

// TestSteadyStateMetrics ports vLLM's compute cases.
func TestSteadyStateMetrics(t *testing.T) {
	t.Parallel()
	gaps := func(n int, g float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = g
		}
		return v
	}
	opts := func(target int, pct []float64, dur float64) SteadyStateOptions {
		return SteadyStateOptions{MaxConcurrency: target, Threshold: 1, MinWindow: f64(0.1), Duration: dur, Percentiles: pct}
	}
	t.Run("constant concurrency: the half-open window drops what lands on its end", func(t *testing.T) {
		t.Parallel()
		recs := []record.Record{ssReq(0, 10, 2, gaps(4, 2), 10), ssReq(0, 10, 2, gaps(4, 2), 10), ssReq(0, 10, 2, gaps(4, 2), 10)}
		ss, err := SteadyStateOf(recs, ssOut(recs), opts(3, []float64{99}, 10))
		if err != nil || ss == nil {
			t.Fatalf("SteadyStateOf = %v, %v", ss, err)
		}
		// Tokens at 2, 4, 6, 8, 10: four a request in [0, 10); no end
		// inside it; 30 prompt tokens over 10 s.
		if ss.Window.RequestsStartedInWindow != 3 || ss.RequestThroughput != 0 || math.Abs(ss.OutputThroughput-1.2) > 1e-9 ||
			math.Abs(ss.InputThroughput-3) > 1e-9 || math.Abs(ss.TotalTokenThroughput-4.2) > 1e-9 {
			t.Errorf("got %+v", ss)
		}
		// TPOT = (10 − 2)/(5 − 1) = 2 s for every request.
		for _, v := range []float64{ss.MeanTPOTMs, ss.MedianTPOTMs, ss.P90TPOTMs, ss.P99TPOTMs} {
			if math.Abs(v-2000) > 1e-6 {
				t.Errorf("TPOT figure %v, want 2000 ms", v)
			}
		}
		if ss.MeanTTFTMs != 2000 || ss.MedianTTFTMs != 2000 || len(ss.PercentilesTTFTMs) != 1 || ss.PercentilesTTFTMs[0] != [2]float64{99, 2000} {
			t.Errorf("TTFT %v %v %v, want 2000 and [[99, 2000]]", ss.MeanTTFTMs, ss.MedianTTFTMs, ss.PercentilesTTFTMs)
		}
	})
	t.Run("tokens a late request emits after the window's end are not counted", func(t *testing.T) {
		t.Parallel()
		recs := []record.Record{ssReq(0, 10, 0, gaps(9, 1), 10), ssReq(9.9, 30, 0.05, gaps(999, 0.02), 10)}
		ss, err := SteadyStateOf(recs, ssOut(recs), opts(2, []float64{99}, 40))
		if err != nil || ss == nil {
			t.Fatalf("SteadyStateOf = %v, %v", ss, err)
		}
		// Window [9.9, 10): first request's token at 9 is out, the late
		// one's at 9.95, 9.97, 9.99 are in (10.01 is out).
		if got, want := ss.OutputThroughput*ss.Window.DurationS, 3.0; math.Abs(got-want) > 1e-6 {
			t.Errorf("%v tokens in the window, want %v", got, want)
		}
	})
	t.Run("percentiles follow the requested list; TTFT over starts in the window", func(t *testing.T) {
		t.Parallel()
		var recs []record.Record
		for i := range 5 {
			recs = append(recs, ssReq(float64(i), 20, 1+float64(i)/10, gaps(9, 1), 100))
		}
		ss, err := SteadyStateOf(recs, ssOut(recs), opts(5, []float64{50, 99}, 25))
		if err != nil || ss == nil {
			t.Fatalf("SteadyStateOf = %v, %v", ss, err)
		}
		if ss.Window.StartS != 4 || ss.Window.EndS != 20 {
			t.Errorf("window %v..%v, want 4..20", ss.Window.StartS, ss.Window.EndS)
		}
		// Only the last request starts in [4, 20): TTFT 1.4 s.
		if len(ss.PercentilesTTFTMs) != 2 || ss.PercentilesTTFTMs[0][0] != 50 || ss.PercentilesTTFTMs[1][0] != 99 ||
			math.Abs(ss.MeanTTFTMs-1400) > 1e-9 || math.Abs(ss.PercentilesTTFTMs[1][1]-1400) > 1e-9 {
			t.Errorf("TTFT mean %v, percentiles %v", ss.MeanTTFTMs, ss.PercentilesTTFTMs)
		}
	})
}

// TestSteadyStateDistStats pins vLLM's dist_stats arithmetic: linear
// interpolation as lo·(1−f) + hi·f, zeros for no values.
func TestSteadyStateDistStats(t *testing.T) {
	t.Parallel()
	mean, median, p := distStats([]float64{0.4, 0.1, 0.3, 0.2}, []float64{50, 90, 99, 100})
	want := [][2]float64{{50, (0.2*0.5 + 0.3*0.5) * 1000}, {90, (0.3*(1-0.7000000000000002) + 0.4*0.7000000000000002) * 1000}, {99, (0.3*(1-0.9700000000000002) + 0.4*0.9700000000000002) * 1000}, {100, 400}}
	if math.Abs(mean-250) > 1e-12 || math.Abs(median-250) > 1e-12 {
		t.Errorf("mean %v median %v, want 250, 250", mean, median)
	}
	for i := range want {
		if p[i][0] != want[i][0] || math.Abs(p[i][1]-want[i][1]) > 1e-9 {
			t.Errorf("percentile %v = %v, want %v", p[i][0], p[i][1], want[i][1])
		}
	}
	mean, median, p = distStats(nil, []float64{90, 99})
	if mean != 0 || median != 0 || len(p) != 2 || p[1] != [2]float64{99, 0} {
		t.Errorf("empty: %v %v %v, want zeros", mean, median, p)
	}
}

// TestSteadyStateJSON pins the object's keys and their order: vLLM's.
func TestSteadyStateJSON(t *testing.T) {
	t.Parallel()
	var recs []record.Record
	for i := range 8 {
		recs = append(recs, ssReq(float64(i)*0.5, 20, 0.5, []float64{1, 1}, 10))
	}
	ss, err := SteadyStateOf(recs, ssOut(recs), SteadyStateOptions{MaxConcurrency: 8, Duration: 25})
	if err != nil || ss == nil {
		t.Fatalf("SteadyStateOf = %v, %v", ss, err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(ss); err != nil {
		t.Fatal(err)
	}
	keys := []string{`"window":{"start_s"`, `"end_s"`, `"duration_s"`, `"target_concurrency":8`, `"threshold":0.95`, `"threshold_abs":8`,
		`"observed_peak":8`, `"requests_started_in_window"`, `"requests_completed_in_window"`, `"requests_total":8`, `"warning"`,
		`"request_throughput"`, `"input_throughput"`, `"output_throughput"`, `"total_token_throughput"`, `"mean_ttft_ms"`,
		`"median_ttft_ms"`, `"percentiles_ttft_ms":[[99,`, `"mean_tpot_ms"`, `"median_tpot_ms"`, `"p90_tpot_ms"`, `"p99_tpot_ms"`}
	at := 0
	s := buf.String()
	for _, k := range keys {
		i := strings.Index(s[at:], k)
		if i < 0 {
			t.Fatalf("%s missing or out of order in %s", k, s)
		}
		at += i + len(k)
	}
	// The default minimum window is max(10 s, 10 % of the run): 16.5 s
	// of window clears it.
	if ss.Window.Warning != nil {
		t.Errorf("unexpected warning %q", *ss.Window.Warning)
	}
}

func TestSteadyStateOptionErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []SteadyStateOptions{{MaxConcurrency: 4, Threshold: 1.5}, {MaxConcurrency: 4, Threshold: -0.1}, {MaxConcurrency: 4, MinWindow: f64(-1)}} {
		if _, err := SteadyStateOf(nil, nil, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := SteadyStateOf([]record.Record{ssReq(0, 1, 0, nil, 0)}, nil, SteadyStateOptions{MaxConcurrency: 1}); err == nil {
		t.Error("missing output lengths accepted")
	}
}

// TestCheckSteadyState: the flags' bounds, with vLLM's messages.
func TestCheckSteadyState(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		threshold float64
		minWindow *float64
		want      string
	}{
		{"the default", DefaultSteadyStateThreshold, nil, ""},
		{"1 is in", 1, f64(0), ""},
		{"0 is out (the flag has no zero default)", 0, nil, "--steady-state-threshold must be in (0.0, 1.0], got 0"},
		{"above 1", 1.5, nil, "--steady-state-threshold must be in (0.0, 1.0], got 1.5"},
		{"NaN", math.NaN(), nil, "--steady-state-threshold must be in (0.0, 1.0], got NaN"},
		{"a negative minimum window", 0.5, f64(-2.5), "--steady-state-min-window must be >= 0, got -2.5"},
	} {
		err := CheckSteadyState(c.threshold, c.minWindow)
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || (err != nil && got != c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestSteadyStateForRun: the options a run's params and summary give.
func TestSteadyStateForRun(t *testing.T) {
	t.Parallel()
	flags := SteadyStateOptions{Disabled: true, Threshold: 0.9, MinWindow: f64(3)}
	conc := 16
	for _, c := range []struct {
		name string
		p    record.Params
		want SteadyStateOptions
	}{
		{"a closed loop at rate inf", record.Params{RequestRate: record.Rate(math.Inf(1)), MaxConcurrency: &conc, DurationS: 12},
			SteadyStateOptions{Disabled: true, Threshold: 0.9, MinWindow: flags.MinWindow, MaxConcurrency: 16, Duration: 12, Percentiles: []float64{50, 99}}},
		{"a finite rate, no concurrency", record.Params{RequestRate: 4, DurationS: 3},
			SteadyStateOptions{Disabled: true, Threshold: 0.9, MinWindow: flags.MinWindow, RateFinite: true, Duration: 3, Percentiles: []float64{50, 99}}},
	} {
		got := flags.ForRun(&c.p, &Summary{Percentiles: []float64{50, 99}})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
