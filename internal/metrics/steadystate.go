package metrics

import (
	"fmt"
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/record"
)

// Steady state: vLLM's Rust bench client (the default behind "vllm bench
// serve" since it replaced the Python one) measures a closed-loop run at
// an infinite rate a second time, over only the window in which the
// client held at least threshold × max_concurrency successful requests in
// flight, so that the ramp at the start and the drain at the end do not
// dilute throughput. This file follows that client's definitions line for
// line: vllm-project/vllm-bench, src/metrics/steady_state.rs
// (detect_window, compute, dist_stats) and the gate in src/benchmark.rs,
// at commit f3131823f167aa1e6f31a48be1ae15a18667a534. docs/confidence.md
// has the prose.

// DefaultSteadyStateThreshold is --steady-state-threshold's default: the
// window opens at 95 % of --max-concurrency.
const DefaultSteadyStateThreshold = 0.95

// SteadyStateOptions are SteadyStateOf's inputs besides the records.
type SteadyStateOptions struct {
	// MaxConcurrency is --max-concurrency, the target the window is
	// measured against; 0 = not set, and there is no steady state.
	MaxConcurrency int
	// RateFinite is true when --request-rate was not inf: vLLM computes a
	// steady state only for a closed loop at an infinite rate.
	RateFinite bool
	// Disabled is --no-steady-state.
	Disabled bool
	// Threshold is --steady-state-threshold, in (0, 1]; 0 =
	// DefaultSteadyStateThreshold.
	Threshold float64
	// MinWindow is --steady-state-min-window in seconds (≥ 0): a window
	// shorter than it carries a warning; nil = max(10, 0.1 × Duration).
	MinWindow *float64
	// Duration is the benchmark duration in seconds.
	Duration float64
	// Percentiles are the TTFT percentiles to report (--metric-
	// percentiles, each in [0, 100]); nil = [99].
	Percentiles []float64
}

// CheckSteadyState checks --steady-state-threshold, in (0, 1], and
// --steady-state-min-window (nil = not given), >= 0, with the messages
// of vLLM's Rust client (src/config.rs).
func CheckSteadyState(threshold float64, minWindow *float64) error {
	if !(threshold > 0 && threshold <= 1) {
		return fmt.Errorf("--steady-state-threshold must be in (0.0, 1.0], got %g", threshold)
	}
	if minWindow != nil && !(*minWindow >= 0) {
		return fmt.Errorf("--steady-state-min-window must be >= 0, got %g", *minWindow)
	}
	return nil
}

// ForRun is o with what a run's params and summary say: the target
// concurrency, whether the rate was finite, the duration and the
// percentiles reported. A replayed trace is no closed loop whatever its
// rate: its caller sets RateFinite.
func (o SteadyStateOptions) ForRun(p *record.Params, s *Summary) SteadyStateOptions {
	o.RateFinite = !p.RequestRate.IsInf()
	o.Duration = p.DurationS
	o.Percentiles = s.Percentiles
	if p.MaxConcurrency != nil {
		o.MaxConcurrency = *p.MaxConcurrency
	}
	return o
}

// SteadyStateWindow is the steady_state.window object: the window's
// bounds in seconds from the earliest successful request's start, and
// what it held. JSON keys and order are vLLM's.
type SteadyStateWindow struct {
	StartS    float64 `json:"start_s"`
	EndS      float64 `json:"end_s"`
	DurationS float64 `json:"duration_s"`
	// TargetConcurrency is --max-concurrency.
	TargetConcurrency int `json:"target_concurrency"`
	// Threshold is the fraction of it at which the window opens.
	Threshold float64 `json:"threshold"`
	// ThresholdAbs = max(1, ceil(Threshold × TargetConcurrency)).
	ThresholdAbs int `json:"threshold_abs"`
	// ObservedPeak is the most successful requests in flight at once,
	// counted event by event (it may differ by one from vLLM's
	// bucketed max_concurrent_requests).
	ObservedPeak int `json:"observed_peak"`
	// RequestsStartedInWindow and RequestsCompletedInWindow count the
	// successful requests whose start, or end, lies in [start, end).
	RequestsStartedInWindow   int `json:"requests_started_in_window"`
	RequestsCompletedInWindow int `json:"requests_completed_in_window"`
	// RequestsTotal counts the successful requests.
	RequestsTotal int `json:"requests_total"`
	// Warning says the window is shorter than the minimum; nil otherwise.
	Warning *string `json:"warning"`
}

// SteadyState is the top-level steady_state object of a result, vLLM's
// keys in vLLM's order. Throughputs are per second of the window;
// latencies in milliseconds.
type SteadyState struct {
	Window SteadyStateWindow `json:"window"`
	// RequestThroughput counts requests completed in the window.
	RequestThroughput float64 `json:"request_throughput"`
	// InputThroughput counts the prompt tokens of requests started in it.
	InputThroughput float64 `json:"input_throughput"`
	// OutputThroughput counts token chunks emitted in it (the first at
	// start + TTFT, then one per ITL gap).
	OutputThroughput     float64 `json:"output_throughput"`
	TotalTokenThroughput float64 `json:"total_token_throughput"`
	// The TTFT and TPOT figures are over requests started in the window.
	MeanTTFTMs   float64 `json:"mean_ttft_ms"`
	MedianTTFTMs float64 `json:"median_ttft_ms"`
	// PercentilesTTFTMs pairs each requested percentile with its value:
	// [[99, 123.4], ...], as vLLM's serde writes a Vec<(f64, f64)>.
	PercentilesTTFTMs [][2]float64 `json:"percentiles_ttft_ms"`
	MeanTPOTMs        float64      `json:"mean_tpot_ms"`
	MedianTPOTMs      float64      `json:"median_tpot_ms"`
	P90TPOTMs         float64      `json:"p90_tpot_ms"`
	P99TPOTMs         float64      `json:"p99_tpot_ms"`
}

// SteadyStateOf computes the steady_state object of a run from its
// records (in dispatch order) and their output lengths as Summarize
// resolved them (Summary.OutputLens). It returns nil, nil where vLLM
// writes null: steady state disabled, no --max-concurrency, a finite
// rate, no successful request, concurrency never reaching the threshold,
// or a window that holds no start and no end. Bad options are an error.
func SteadyStateOf(recs []record.Record, outputLens []int, o SteadyStateOptions) (*SteadyState, error) {
	if o.Threshold == 0 {
		o.Threshold = DefaultSteadyStateThreshold
	}
	if err := CheckSteadyState(o.Threshold, o.MinWindow); err != nil {
		return nil, err
	}
	if len(outputLens) != len(recs) {
		return nil, fmt.Errorf("steady state: %d output lengths for %d records", len(outputLens), len(recs))
	}
	if o.Disabled || o.MaxConcurrency <= 0 || o.RateFinite {
		return nil, nil
	}
	minWindow := math.Max(10, 0.1*o.Duration)
	if o.MinWindow != nil {
		minWindow = *o.MinWindow
	}
	w, ok := detectWindow(recs, o.MaxConcurrency, o.Threshold, minWindow, o.Duration)
	if !ok {
		return nil, nil
	}
	pct := o.Percentiles
	if pct == nil {
		pct = []float64{99}
	}
	return steadyMetrics(recs, outputLens, w, pct), nil
}

// detectWindow is vLLM's detect_window: sweep the successful requests'
// start and end events in time order (an end before a start at the same
// instant), open the window at the first event that lifts the in-flight
// count to threshold_abs and close it at the last one that drops it
// below.
func detectWindow(recs []record.Record, target int, threshold, minWindow, total float64) (SteadyStateWindow, bool) {
	thresholdAbs := max(int(math.Ceil(threshold*float64(target))), 1)
	var starts, ends []float64
	for i := range recs {
		if r := &recs[i]; r.Success {
			starts = append(starts, r.StartTime)
			ends = append(ends, r.StartTime+r.Latency)
		}
	}
	if len(starts) == 0 {
		return SteadyStateWindow{}, false
	}
	slices.Sort(starts)
	slices.Sort(ends)
	minStart := starts[0]
	var (
		i, j, inFlight, peak int
		up, down             float64
		haveUp, haveDown     bool
	)
	for i < len(starts) || j < len(ends) {
		nextIsEnd := i == len(starts) || (j < len(ends) && ends[j] <= starts[i])
		if nextIsEnd {
			t := ends[j]
			j++
			before := inFlight
			inFlight = max(inFlight-1, 0)
			if before >= thresholdAbs && inFlight < thresholdAbs {
				down, haveDown = t, true
			}
			continue
		}
		t := starts[i]
		i++
		before := inFlight
		inFlight++
		peak = max(peak, inFlight)
		if before < thresholdAbs && inFlight >= thresholdAbs && !haveUp {
			up, haveUp = t, true
		}
	}
	if !haveUp {
		return SteadyStateWindow{}, false
	}
	if !haveDown { // cannot happen (the last ends drain to 0); vLLM's fallback
		down = ends[len(ends)-1]
	}
	w := SteadyStateWindow{
		StartS: up - minStart, EndS: down - minStart,
		TargetConcurrency: target, Threshold: threshold, ThresholdAbs: thresholdAbs,
		ObservedPeak: peak, RequestsTotal: len(starts),
	}
	w.DurationS = w.EndS - w.StartS
	for k := range recs {
		r := &recs[k]
		if !r.Success {
			continue
		}
		if r.StartTime >= up && r.StartTime < down {
			w.RequestsStartedInWindow++
		}
		if e := r.StartTime + r.Latency; e >= up && e < down {
			w.RequestsCompletedInWindow++
		}
	}
	if w.RequestsStartedInWindow == 0 && w.RequestsCompletedInWindow == 0 {
		return SteadyStateWindow{}, false
	}
	if w.DurationS < minWindow {
		msg := fmt.Sprintf("steady-state window is %.1fs (%.1f%% of run); may not be representative",
			w.DurationS, 100*w.DurationS/math.Max(total, 1e-9))
		w.Warning = &msg
	}
	return w, true
}

// steadyMetrics is vLLM's compute: throughputs over the window and TTFT,
// TPOT over the requests started in it. The window's absolute bounds are
// re-derived from its normalised ones, as vLLM does, so that a saved
// window gives the same figures.
func steadyMetrics(recs []record.Record, outputLens []int, w SteadyStateWindow, pct []float64) *SteadyState {
	minStart := math.Inf(1)
	for i := range recs {
		if recs[i].Success {
			minStart = math.Min(minStart, recs[i].StartTime)
		}
	}
	startAbs, endAbs := w.StartS+minStart, w.EndS+minStart
	duration := math.Max(w.DurationS, 1e-9)
	completed, inputTokens, outputTokens := 0, 0, 0
	var ttfts, tpots []float64
	in := func(t float64) bool { return t >= startAbs && t < endAbs }
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		if in(r.StartTime + r.Latency) {
			completed++
		}
		out := outputLens[i]
		if in(r.StartTime) {
			inputTokens += r.PromptLen
			ttfts = append(ttfts, r.TTFT)
			if tpot, ok := RequestTPOT(r.Latency, r.TTFT, out); ok {
				tpots = append(tpots, tpot)
			}
		}
		if out == 0 && len(r.ITL) == 0 {
			continue
		}
		// One token chunk at start + TTFT, then one per gap; chunks only
		// move forward, so stop at the window's end.
		t := r.StartTime + r.TTFT
		if in(t) {
			outputTokens++
		}
		for _, g := range r.ITL {
			t += g
			if in(t) {
				outputTokens++
			}
			if t >= endAbs {
				break
			}
		}
	}
	s := &SteadyState{Window: w,
		RequestThroughput: float64(completed) / duration,
		InputThroughput:   float64(inputTokens) / duration,
		OutputThroughput:  float64(outputTokens) / duration,
	}
	s.TotalTokenThroughput = s.InputThroughput + s.OutputThroughput
	var ttftPct, tpotPct [][2]float64
	s.MeanTTFTMs, s.MedianTTFTMs, ttftPct = distStats(ttfts, pct)
	s.PercentilesTTFTMs = ttftPct
	s.MeanTPOTMs, s.MedianTPOTMs, tpotPct = distStats(tpots, []float64{90, 99})
	s.P90TPOTMs, s.P99TPOTMs = tpotPct[0][1], tpotPct[1][1]
	return s
}

// distStats is vLLM's dist_stats: mean (a plain sum of the sorted values),
// median and percentiles by linear interpolation written as
// lo·(1−f) + hi·f, all in ms; zeros when values is empty. It is not
// Summarize's NumPy arithmetic (pairwise sums, lo + f·(hi−lo)) on
// purpose: the figures must be the Rust client's to the last bit.
func distStats(values, pct []float64) (mean, median float64, out [][2]float64) {
	out = make([][2]float64, len(pct))
	if len(values) == 0 {
		for i, p := range pct {
			out[i] = [2]float64{p, 0}
		}
		return 0, 0, out
	}
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	mean = sum / float64(n)
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	} else {
		median = s[n/2]
	}
	for i, p := range pct {
		idx := p / 100 * float64(n-1)
		lo, hi := int(math.Floor(idx)), int(math.Ceil(idx))
		f := idx - float64(lo)
		v := s[lo]
		if lo != hi {
			v = s[lo]*(1-f) + s[hi]*f
		}
		out[i] = [2]float64{p, v * 1000}
	}
	return mean * 1000, median * 1000, out
}
