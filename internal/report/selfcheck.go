package report

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/llmbench/llmbench/internal/selfcheck"
)

// SelfCheckKey is the key, inside the ExtrasKey object, of a result's
// self-check (SelfCheckObject).
const SelfCheckKey = "self_check"

// WriteSelfCheck writes the self-check's line at the end of the table:
// the verdict with its reasons, and the figures it judged
// (docs/fidelity.md); preconnected counts the connections opened before
// the run (--preconnect). The achieved rate shows against a finite
// target, the requests held in flight against those wanted.
func WriteSelfCheck(w io.Writer, v selfcheck.Result, m *selfcheck.Measurements, preconnected int) {
	fmt.Fprintf(w, "Self-check: %s (client CPU %.0f%% of %d cores, Go scheduler latency p99 %.2f ms, dispatch lag p99 %.2f ms, %.0f events/s, %d connections opened",
		v, 100*m.CPUShare(), m.Cores, 1e3*m.SchedLatencyP99.Seconds(), 1e3*m.DispatchLagP99.Seconds(), m.EventsPerSecond(), m.Connections)
	if preconnected > 0 {
		fmt.Fprintf(w, ", %d before the run", preconnected)
	}
	if m.AchievedRate > 0 && m.TargetRate > 0 && m.TargetRate < 1e308 {
		fmt.Fprintf(w, ", %.4g of %.4g req/s", m.AchievedRate, m.TargetRate)
	}
	if m.InFlightWanted > 0 && m.InFlightHeld > 0 {
		fmt.Fprintf(w, ", %d of %d requests held in flight", m.InFlightHeld, m.InFlightWanted)
	}
	fmt.Fprintln(w, ")")
}

// SelfCheckObject is the result's self_check object: verdict, reasons
// (an empty list, never null), the measurements by name (sorted:
// selfcheck.Measurements.Values) and the connections preconnected.
func SelfCheckObject(v selfcheck.Result, m *selfcheck.Measurements, preconnected int) *Object {
	x := NewObject()
	x.Set("verdict", string(v.Verdict))
	reasons := v.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	x.Set("reasons", reasons)
	vals := m.Values()
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		x.Set(k, vals[k])
	}
	x.Set("preconnected", preconnected)
	return x
}
