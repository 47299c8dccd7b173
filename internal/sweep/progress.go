package sweep

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// The progress lines: the schedule and the plan before the first step,
// each step's name, its line after it runs, and the late-start warning.

// LateMarker ends the note of a step that started late; merge carries
// such notes into the merged sweep.
const LateMarker = "late: raise --step-gap"

// printSchedule says, before the first step, which share this worker
// runs and when the steps start.
func (d *Driver) printSchedule() {
	c := &d.cfg
	if c.StartAt.IsZero() {
		return
	}
	if i := c.Worker; i != nil {
		fmt.Fprintf(d.errw, "Worker %d of %d, run %s (config %s): this worker's share of every step. ", i.Index, i.Count, i.RunID, i.ConfigHash)
	}
	fmt.Fprintf(d.errw, "Step 1 starts at %s, each next one %v later (--step-duration %v + --step-gap %v).\n",
		d.stepStart(0).UTC().Format(time.RFC3339Nano), c.StepDuration+c.StepGap, c.StepDuration, c.StepGap)
}

// printPlan says before the first step what the ladder will take: the
// steps, their size and, bounded by time, about how long; bounded by
// requests the time is the server's to set, and each step's line gives
// an estimate for the rest.
func (d *Driver) printPlan(w io.Writer) {
	c := &d.cfg
	levels := make([]string, len(c.Loads))
	for i, l := range c.Loads {
		levels[i] = strconv.FormatFloat(l, 'f', -1, 64)
	}
	runs := c.Repeat.Planned()
	steps := len(c.Loads) * runs
	head := fmt.Sprintf("Plan: %d steps (%s %s", steps, c.Kind, strings.Join(levels, ", "))
	switch {
	case c.Repeat.Auto:
		head = fmt.Sprintf("Plan: at most %d steps (%s %s, %d to %d runs each until the 95%% intervals of %s are within %s of their means",
			steps, c.Kind, strings.Join(levels, ", "), stats.MinAutoRuns, runs, strings.Join(c.SLA.Deciding(), ", "), PctWords(c.Repeat.CIWidth))
	case runs > 1:
		head += fmt.Sprintf(", %d runs each", runs)
	}
	head += ")"
	refine := ""
	if c.Refine > 0 {
		refine = fmt.Sprintf(", plus up to %d refinement steps", c.Refine*runs)
	}
	if c.StepDuration > 0 {
		fmt.Fprintf(w, "%s of %v each after their warm-ups: about %v in all%s.\n", head, c.StepDuration, time.Duration(steps)*c.StepDuration, refine)
		return
	}
	total := 0
	lo, hi := math.MaxInt, 0
	for _, l := range c.Loads {
		n := d.stepRequests(l)
		total += n * runs
		lo, hi = min(lo, n), max(hi, n)
	}
	size := strconv.Itoa(lo)
	if hi != lo {
		size += "-" + strconv.Itoa(hi)
	}
	fmt.Fprintf(w, "%s of %s requests each, %d in all%s; the time depends on the server (each step's line estimates the rest).\n", head, size, total, refine)
}

// PctWords is a fraction as a percentage in words: 0.01 is "1 %".
func PctWords(f float64) string {
	return strconv.FormatFloat(100*f, 'f', -1, 64) + " %"
}

// stepWords names a step in its progress line: "step 3 of 12:
// concurrency 4 (run 2 of 3)".
func (d *Driver) stepWords(l float64, run int) string {
	what := fmt.Sprintf("step %d of %d: %s %s", d.n, d.total, d.cfg.Kind, strconv.FormatFloat(l, 'f', -1, 64))
	switch rp := &d.cfg.Repeat; {
	case rp.Auto:
		what = fmt.Sprintf("step %d of at most %d: %s %s (run %d of at most %d, --runs auto)", d.n, d.total, d.cfg.Kind, strconv.FormatFloat(l, 'f', -1, 64), run, rp.MaxRuns)
	case rp.Runs > 1:
		what += fmt.Sprintf(" (run %d of %d)", run, rp.Runs)
	}
	return what
}

// etaNote estimates the rest of the ladder after a step, at the pace of
// the step just run: "" when bounded by time (the plan said) or when the
// pace is unknown.
func (d *Driver) etaNote(row *capacity.Row) string {
	if d.cfg.StepDuration > 0 || row.RequestThroughput <= 0 {
		return ""
	}
	left := 0
	for _, l := range d.cfg.Loads {
		if l > row.Load || (l == row.Load && d.n < d.total) {
			left += d.stepRequests(l)
		}
	}
	if left == 0 || d.n >= d.total {
		return ""
	}
	eta := time.Duration(float64(left) / row.RequestThroughput * float64(time.Second))
	return fmt.Sprintf(", ~%v left at this pace", eta.Round(time.Second))
}

// verdictNote is ", unresolved" after the last run of a load whose SLA
// verdict is unresolved (its interval straddles a limit), else "".
func (d *Driver) verdictNote(l float64, last bool) string {
	if d.an == nil || !last {
		return ""
	}
	for i := range d.an.Steps {
		if r := &d.an.Steps[i]; r.Load == l && r.SLAVerdict == capacity.VerdictUnresolved {
			return " (unresolved: its interval straddles a limit)"
		}
	}
	return ""
}

// ConvergenceNote is the step line's word on --runs auto: how the
// deciding intervals stand after this run ("" for a fixed --runs).
func ConvergenceNote(c *stats.Convergence, more bool) string {
	switch {
	case c == nil:
		return ""
	case c.Converged:
		return fmt.Sprintf(" (converged after %d runs: %s)", c.Runs, capacity.ConvergenceWords(c))
	case !more:
		return fmt.Sprintf(" (NOT converged in %d runs: %s)", c.Runs, capacity.ConvergenceWords(c))
	case c.Runs >= stats.MinAutoRuns:
		return fmt.Sprintf(" (not converged yet: %s)", capacity.ConvergenceWords(c))
	}
	return ""
}

// StepLine is the one-line progress note after a step.
func StepLine(r *capacity.Row, sla capacity.SLA) string {
	s := fmt.Sprintf("%d completed, %d failed, %.1f out tok/s, p99 TTFT %.1f ms, p99 ITL %.1f ms", r.Completed, r.Failed, r.OutputThroughput, r.P99TTFTMs, r.P99ITLMs)
	if len(sla) > 0 {
		ok := true
		for _, t := range sla {
			if v, found := r.Value(t.Key); !found || !t.Pass(v) {
				ok = false
			}
		}
		s += map[bool]string{true: ", SLA pass", false: ", SLA FAIL"}[ok]
	}
	if r.ThroughputFrom == capacity.ThroughputSteady {
		s += fmt.Sprintf(" (throughput over the %.1fs steady window; whole run %.1f out tok/s)", *r.SteadyWindowS, r.RunThroughput[metrics.KeyOutputThroughput])
	}
	if r.HarnessLimited {
		s += " (client-limited: " + r.HarnessReason + ")"
	}
	return s
}

// lateNote is the warning for a step that was not ready by its start
// instant (it then started at once, out of step with the other workers);
// "" when it was on time. It is printed now and kept in the sweep's notes.
func (d *Driver) lateNote(o *bench.Outcome) string {
	if o.Late <= 0 {
		return ""
	}
	note := fmt.Sprintf("step %d started %v %s (it must cover the previous step's drain and this step's warm-ups)", d.n, o.Late.Round(time.Millisecond), LateMarker)
	if w := d.cfg.Worker; w != nil {
		note = fmt.Sprintf("worker %d: %s", w.Index, note)
	}
	fmt.Fprintln(d.errw, "  Warning: "+note)
	d.late = append(d.late, note)
	return note
}
