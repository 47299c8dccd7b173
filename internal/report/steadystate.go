package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/table"
)

// SteadyStateKey is the top-level key vLLM's Rust bench client writes
// the steady-state figures under (metrics.SteadyStateOf).
const SteadyStateKey = "steady_state"

// steadyStateValue is the steady_state value as the Python-style writer
// must see it: an Object of float64s and ints (a struct would go through
// encoding/json, which writes 99 where vLLM writes 99.0), or nil (null).
//
// Keys are in the order of the Rust client's struct fields
// (vllm-project/vllm-bench src/metrics/steady_state.rs). That client's
// serde_json is built without preserve_order, so its own file lists
// every object's keys sorted by name, without spaces; this file keeps
// the Python layout of the rest of the result instead. Readers look keys
// up by name, so only the bytes differ, not the content.
func steadyStateValue(ss *metrics.SteadyState) any {
	if ss == nil {
		return nil
	}
	w := &ss.Window
	wo := NewObject()
	wo.Set("start_s", w.StartS)
	wo.Set("end_s", w.EndS)
	wo.Set("duration_s", w.DurationS)
	wo.Set("target_concurrency", w.TargetConcurrency)
	wo.Set("threshold", w.Threshold)
	wo.Set("threshold_abs", w.ThresholdAbs)
	wo.Set("observed_peak", w.ObservedPeak)
	wo.Set("requests_started_in_window", w.RequestsStartedInWindow)
	wo.Set("requests_completed_in_window", w.RequestsCompletedInWindow)
	wo.Set("requests_total", w.RequestsTotal)
	var warning any
	if w.Warning != nil {
		warning = *w.Warning
	}
	wo.Set("warning", warning)
	o := NewObject()
	o.Set("window", wo)
	o.Set(metrics.KeyRequestThroughput, ss.RequestThroughput)
	o.Set("input_throughput", ss.InputThroughput)
	o.Set(metrics.KeyOutputThroughput, ss.OutputThroughput)
	o.Set(metrics.KeyTotalTokenThroughput, ss.TotalTokenThroughput)
	o.Set(metrics.KeyMeanTTFT, ss.MeanTTFTMs)
	o.Set(metrics.KeyMedianTTFT, ss.MedianTTFTMs)
	pairs := make([]any, len(ss.PercentilesTTFTMs))
	for i, pv := range ss.PercentilesTTFTMs {
		pairs[i] = []float64{pv[0], pv[1]} // serde writes a (f64, f64) as a list
	}
	o.Set("percentiles_ttft_ms", pairs)
	o.Set(metrics.KeyMeanTPOT, ss.MeanTPOTMs)
	o.Set(metrics.KeyMedianTPOT, ss.MedianTPOTMs)
	o.Set(metrics.KeyP90TPOT, ss.P90TPOTMs)
	o.Set(metrics.KeyP99TPOT, ss.P99TPOTMs)
	return o
}

// steadyWidth is the width of the Rust client's steady-state section.
const steadyWidth = 47

// SteadyStateLines returns the section vLLM's Rust bench client prints
// after its table (src/output/console.rs, print_steady_state): the
// window's warning on a "Warning:" line, then the window, the
// throughputs and the TTFT and TPOT figures over it. Nothing when ss is
// nil, as there.
func SteadyStateLines(ss *metrics.SteadyState) []string {
	if ss == nil {
		return nil
	}
	w := &ss.Window
	var l []string
	if w.Warning != nil {
		l = append(l, "Warning: "+*w.Warning)
	}
	line := func(label, v string) string { return fmt.Sprintf("%-35s %s", label, v) }
	f1 := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	started := 100 * float64(w.RequestsStartedInWindow) / float64(max(w.RequestsTotal, 1))
	l = append(l,
		table.Center(" Steady-State Metrics ", '=', steadyWidth),
		line("Concurrency threshold:", fmt.Sprintf(">= %s * %d = %d", fixed2(w.Threshold), w.TargetConcurrency, w.ThresholdAbs)),
		line("Window:", fmt.Sprintf("%ss -> %ss  (%ss)", f1(w.StartS), f1(w.EndS), f1(w.DurationS))),
		line("Observed peak concurrency:", strconv.Itoa(w.ObservedPeak)),
		line("Requests started in window:", fmt.Sprintf("%d / %d (%s%%)", w.RequestsStartedInWindow, w.RequestsTotal, f1(started))),
		line("Requests completed in window:", strconv.Itoa(w.RequestsCompletedInWindow)),
		strings.Repeat("-", steadyWidth),
		line("Request throughput (req/s):", fixed2(ss.RequestThroughput)),
		line("Output token throughput (tok/s):", fixed2(ss.OutputThroughput)),
		line("Input token throughput (tok/s):", fixed2(ss.InputThroughput)),
		line("Total token throughput (tok/s):", fixed2(ss.TotalTokenThroughput)),
	)
	if len(ss.PercentilesTTFTMs) > 0 || ss.MeanTTFTMs > 0 {
		l = append(l, strings.Repeat("-", steadyWidth),
			line("Mean TTFT (ms):", fixed2(ss.MeanTTFTMs)),
			line("Median TTFT (ms):", fixed2(ss.MedianTTFTMs)))
		for _, pv := range ss.PercentilesTTFTMs {
			// The Rust client labels a percentile by its integer part
			// ("P99" for 99.9): *p as u32.
			l = append(l, line(fmt.Sprintf("P%d TTFT (ms):", uint32(pv[0])), fixed2(pv[1])))
		}
	}
	if ss.MeanTPOTMs > 0 || ss.MedianTPOTMs > 0 {
		l = append(l, strings.Repeat("-", steadyWidth),
			line("Mean TPOT (ms):", fixed2(ss.MeanTPOTMs)),
			line("Median TPOT (ms):", fixed2(ss.MedianTPOTMs)),
			line("P90 TPOT (ms):", fixed2(ss.P90TPOTMs)),
			line("P99 TPOT (ms):", fixed2(ss.P99TPOTMs)))
	}
	return append(l, strings.Repeat("=", steadyWidth))
}

// WriteSteadyState writes the steady-state section (see SteadyStateLines).
func WriteSteadyState(w io.Writer, ss *metrics.SteadyState) error {
	return writeLines(w, SteadyStateLines(ss))
}
