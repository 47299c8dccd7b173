package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// selfCheckKey is where the self-check goes in the result: the llmbench
// object's self_check (see report.SetExtra).
const selfCheckKey = report.ExtrasKey + "/self_check"

// writeSelfCheck prints the self-check's line at the end of the table:
// the verdict, the reasons, and the figures it judged (docs/fidelity.md).
func writeSelfCheck(w io.Writer, o *bench.Outcome) {
	m := &o.SelfCheck
	fmt.Fprintf(w, "Self-check: %s (client CPU %.0f%% of %d cores, Go scheduler latency p99 %.2f ms, dispatch lag p99 %.2f ms, %.0f events/s, %d connections opened",
		o.Verdict, 100*m.CPUShare(), m.Cores, msOf(m.SchedLatencyP99.Seconds()), msOf(m.DispatchLagP99.Seconds()), m.EventsPerSecond(), m.Connections)
	if o.Preconnected > 0 {
		fmt.Fprintf(w, ", %d before the run", o.Preconnected)
	}
	if m.AchievedRate > 0 && m.TargetRate > 0 && m.TargetRate < 1e308 {
		fmt.Fprintf(w, ", %.4g of %.4g req/s", m.AchievedRate, m.TargetRate)
	}
	if m.InFlightWanted > 0 && m.InFlightHeld > 0 {
		fmt.Fprintf(w, ", %d of %d requests held in flight", m.InFlightHeld, m.InFlightWanted)
	}
	fmt.Fprintln(w, ")")
}

func msOf(s float64) float64 { return 1e3 * s }

// selfCheckObject is the result's self_check object: verdict, reasons,
// the measurements by name (sorted) and the connections preconnected.
func selfCheckObject(o *bench.Outcome) *report.Object {
	x := report.NewObject()
	x.Set("verdict", string(o.Verdict.Verdict))
	reasons := o.Verdict.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	x.Set("reasons", reasons)
	v := o.SelfCheck.Values()
	for _, k := range slices.Sorted(maps.Keys(v)) {
		x.Set(k, v[k])
	}
	x.Set("preconnected", o.Preconnected)
	return x
}

// requireValid is --require-valid's exit policy: exit 1 unless the
// self-check verdict is valid.
func requireValid(on bool, o *bench.Outcome) error {
	if !on || o.Verdict.Verdict == selfcheck.Valid {
		return nil
	}
	return &ExitError{Code: 1, Msg: fmt.Sprintf("--require-valid: the self-check says %s", o.Verdict)}
}
