package capacity

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
)

// Throughput sources (Row.ThroughputFrom).
const (
	// ThroughputSteady: the closed-loop step's steady_state window
	// (metrics.SteadyStateOf, docs/confidence.md#steady_state).
	ThroughputSteady = "steady_state"
	// ThroughputRun: the whole run, ramp-up and drain included.
	ThroughputRun = "run"
	// ThroughputMixed: runs of one load that differ (some found a
	// window, some did not); the row's figures mean both kinds.
	ThroughputMixed = "mixed"
)

// steadyKeys maps the throughputs a steady window replaces to its figure.
var steadyKeys = []struct {
	key string
	get func(*metrics.SteadyState) float64
}{
	{metrics.KeyRequestThroughput, func(s *metrics.SteadyState) float64 { return s.RequestThroughput }},
	{metrics.KeyOutputThroughput, func(s *metrics.SteadyState) float64 { return s.OutputThroughput }},
	{metrics.KeyTotalTokenThroughput, func(s *metrics.SteadyState) float64 { return s.TotalTokenThroughput }},
}

// SteadyThroughput makes a closed-loop row's request, output and total
// token throughputs those of its steady_state window ss, keeping the
// whole run's in RunThroughput: a short step's ramp-up at the start and
// drain at the end otherwise dilute what the server sustains at the
// load, and the saturation analysis reads these figures. With no window
// (ss nil), or one that saw fewer than half the step's requests
// complete (SteadyUsable), the whole run's stay and the row says so.
func (r *Row) SteadyThroughput(ss *metrics.SteadyState) {
	if !SteadyUsable(ss) {
		r.ThroughputFrom = ThroughputRun
		return
	}
	r.RunThroughput = map[string]float64{}
	for _, k := range steadyKeys {
		r.RunThroughput[k.key] = r.Metrics[k.key]
		r.Metrics[k.key] = k.get(ss)
	}
	d := ss.Window.DurationS
	r.ThroughputFrom, r.SteadyWindowS = ThroughputSteady, &d
	r.derive()
}

// SteadyUsable reports whether a steady window can stand for its step:
// it exists and at least half the step's successful requests completed
// in it. A step of one wave (as many requests as its concurrency) has a
// window from the last start to the first end, in which next to nothing
// completes: a moment, not a steady state, and its request throughput
// would be about 0.
func SteadyUsable(ss *metrics.SteadyState) bool {
	return ss != nil && 2*ss.Window.RequestsCompletedInWindow >= ss.Window.RequestsTotal && ss.Window.RequestsCompletedInWindow > 0
}

// aggregateThroughput sets an aggregated row's throughput source from
// its runs': one source when they agree, else ThroughputMixed; the
// window's and the whole run's figures are the runs' means.
func aggregateThroughput(out *Row, rows []Row) {
	out.ThroughputFrom = rows[0].ThroughputFrom
	for i := range rows {
		if rows[i].ThroughputFrom != out.ThroughputFrom {
			out.ThroughputFrom = ThroughputMixed
		}
	}
	out.SteadyWindowS = meanOf(rows, func(r *Row) *float64 { return r.SteadyWindowS })
	for _, k := range steadyKeys {
		v := meanOf(rows, func(r *Row) *float64 {
			if x, ok := r.RunThroughput[k.key]; ok {
				return &x
			}
			return nil
		})
		if v != nil {
			if out.RunThroughput == nil {
				out.RunThroughput = map[string]float64{}
			}
			out.RunThroughput[k.key] = *v
		}
	}
	for i := range rows {
		if c := rows[i].Convergence; c != nil {
			out.Convergence = c // the last run's record covers them all
		}
	}
}

// steadyNote is the note that says which steps' throughputs are their
// steady window's; "" when none is.
func steadyNote(steps []Row) string {
	var without []string
	steady := false
	for i := range steps {
		r := &steps[i]
		steady = steady || r.ThroughputFrom == ThroughputSteady || r.ThroughputFrom == ThroughputMixed
		if r.ThroughputFrom == ThroughputRun || r.ThroughputFrom == ThroughputMixed {
			without = append(without, strconv.FormatFloat(r.Load, 'f', -1, 64))
		}
	}
	if !steady {
		return ""
	}
	s := "throughput over each step's steady window (vLLM's steady_state); ramp and drain excluded"
	if len(without) > 0 {
		s += fmt.Sprintf(" (%s %s: no usable window in every run, the whole run's)", steps[0].LoadKind, strings.Join(without, ", "))
	}
	return s
}
