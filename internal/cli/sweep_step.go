package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/stats"
)

// stepLoad is the bench load of one step at level l.
func (d *sweepDriver) stepLoad(l float64) bench.Load {
	s := &d.o.s
	bl := bench.Load{Arrivals: d.base.Load.Arrivals, Duration: s.stepDuration << d.longer[l]}
	switch d.kind {
	case capacity.Concurrency:
		u := load.Concurrency(int(l))
		bl.Users = &u
	case capacity.Users:
		u := load.Users{Users: int(l), Think: d.think, SpawnRate: s.spawnRate, Seed: uint64(d.o.f.ds.Seed)}
		bl.Users = &u
	default:
		bl.Arrivals.Rate = l
		bl.Arrivals.RampStrategy = ""
	}
	return bl
}

// stepRequests is how many requests a step at level l sends: under
// --step-duration as many as the time allows (a plan of requests is
// cycled), else --prompts-per-step or a default that gives each level
// enough requests to reach a steady state and every percentile of the
// SLA the requests it needs (capacity.MinRequests: 100 for a p99).
func (d *sweepDriver) stepRequests(l float64) int {
	return d.baseRequests(l) << d.longer[l]
}

// baseRequests is stepRequests before --refine lengthened the step.
func (d *sweepDriver) baseRequests(l float64) int {
	s := &d.o.s
	least := max(32, d.sla.MinRequestsFor())
	switch {
	case s.promptsPerStep > 0:
		return s.promptsPerStep
	case s.stepDuration > 0 && d.kind == capacity.RequestRate:
		return int(math.Ceil(l * (s.stepDuration << d.longer[l]).Seconds()))
	case s.stepDuration > 0:
		return len(d.base.Requests) // cycled until the time is up
	case d.kind == capacity.RequestRate:
		return max(least, int(math.Ceil(l*20)))
	}
	return max(least, 8*int(l))
}

// printPlan says before the first step what the ladder will take: the
// steps, their size and, bounded by time, about how long; bounded by
// requests the time is the server's to set, and each step's line gives
// an estimate for the rest.
func (d *sweepDriver) printPlan(w io.Writer, loads []float64) {
	s := &d.o.s
	levels := make([]string, len(loads))
	for i, l := range loads {
		levels[i] = strconv.FormatFloat(l, 'f', -1, 64)
	}
	rp := &d.o.f.repeat
	runs := rp.planned()
	steps := len(loads) * runs
	head := fmt.Sprintf("Plan: %d steps (%s %s", steps, d.kind, strings.Join(levels, ", "))
	switch {
	case rp.runs.auto:
		head = fmt.Sprintf("Plan: at most %d steps (%s %s, %d to %d runs each until the 95%% intervals of %s are within %s of their means",
			steps, d.kind, strings.Join(levels, ", "), stats.MinAutoRuns, runs, strings.Join(d.sla.Deciding(), ", "), pctWords(rp.ciWidth))
	case runs > 1:
		head += fmt.Sprintf(", %d runs each", runs)
	}
	head += ")"
	refine := ""
	if s.refine > 0 {
		refine = fmt.Sprintf(", plus up to %d refinement steps", s.refine*runs)
	}
	if s.stepDuration > 0 {
		fmt.Fprintf(w, "%s of %v each after their warm-ups: about %v in all%s.\n", head, s.stepDuration, time.Duration(steps)*s.stepDuration, refine)
		return
	}
	total := 0
	lo, hi := math.MaxInt, 0
	for _, l := range loads {
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

// etaNote estimates the rest of the ladder after a step, at the pace of
// the step just run: "" when bounded by time (the plan said) or when the
// pace is unknown.
func (d *sweepDriver) etaNote(loads []float64, row *capacity.Row) string {
	if d.o.s.stepDuration > 0 || row.RequestThroughput <= 0 {
		return ""
	}
	left := 0
	for _, l := range loads {
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

// stepWarmups is --step-warmup, or the load itself (at most 64), so the
// server's batch is full before the step's clock starts.
func (d *sweepDriver) stepWarmups(l float64) int {
	if d.o.s.stepWarmup >= 0 {
		return d.o.s.stepWarmup
	}
	return max(1, min(64, int(math.Ceil(l))))
}

// step runs one step and adds its row; ok is false when the sweep must
// stop (interrupted, or the step could not run), more whether the load
// wants another run (--runs).
func (d *sweepDriver) step(ctx context.Context, l float64, run int) (ok, more bool) {
	if !d.runStep(ctx, l, run) {
		return false, false
	}
	return ctx.Err() == nil, d.more
}

// runStep is step's body: it sets d.more.
func (d *sweepDriver) runStep(ctx context.Context, l float64, run int) bool {
	d.n++
	d.more = false
	what := d.stepWords(l, run)
	p, err := d.stepPlan(l)
	if err != nil {
		d.stopped = fmt.Sprintf("%s: %v", what, err)
		fmt.Fprintln(d.ui.errw, "  "+d.stopped)
		return false
	}
	fmt.Fprintf(d.ui.errw, "%s ...\n", what)
	runs := d.o.f.repeat.planned()
	d.o.live.StartPhase(stepPhase(d.kind, l, run, runs), p)
	rec := d.stepRecords(stepName(d.kind, l, run, runs))
	total := len(p.Requests)
	if p.Load.Duration > 0 {
		total = 0 // bounded by time
	}
	bar := newProgress(d.ui.tty, d.ui.errw, total, d.o.f.disableTqdm)
	sr := d.o.startServer(ctx, d.ui.errw)
	outcome, err := bench.Execute(ctx, p, bench.Hooks{Sink: bench.Sinks{rec.sink(d.ui.errw), d.o.live.Sink(), bar},
		InFlight: d.o.live.Counter(), BeforeStart: sr.BeforeStart(ctx)})
	sr.Stop()
	defer rec.close(nil) // every path ends the file; a closed one stays as it is
	if e := (*bench.EndpointError)(nil); errors.As(err, &e) {
		// The first requests all failed alike: past the first step, the
		// server that answered before has stopped.
		d.stopped = fmt.Sprintf("%s failed: %v", what, err)
		d.dead = fmt.Sprintf("%s: %v", what, err)
		fmt.Fprintln(d.ui.errw, "  "+d.stopped)
		return false
	}
	if err != nil {
		d.stopped = fmt.Sprintf("%s failed: %v", what, err)
		fmt.Fprintln(d.ui.errw, "  "+d.stopped)
		return false
	}
	if outcome.Interrupted {
		rec.closeInterrupted(p, outcome)
		d.stopped = what + " was interrupted; it is left out"
		return false
	}
	warn := d.lateNote(outcome)
	row, err := d.rowOf(p, outcome, stepInfo{load: l, run: run, rec: rec, warn: warn, server: sr})
	if err != nil {
		d.stopped = fmt.Sprintf("%s: %v", what, err)
		return false
	}
	d.rows = append(d.rows, row)
	d.windows = append(d.windows, stepWindow{outcome.Start, outcome.Start.Add(outcome.Duration)})
	more, conv := d.o.f.repeat.next(d.runFigures(l), d.sla.Deciding())
	d.rows[len(d.rows)-1].Convergence = conv
	if !more {
		if err := d.saveRuns(conv); err != nil {
			d.stopped = fmt.Sprintf("%s: %v", what, err)
			return false
		}
	}
	if an, err := capacity.Analyze(d.kind, d.sla, d.rows); err == nil {
		d.an = an
	}
	fmt.Fprintf(d.ui.errw, "  %s%s%s%s\n", stepLine(&row, d.sla), d.verdictNote(l, !more), convergenceNote(conv, more), d.etaNote(d.loads, &row))
	d.more = more
	if row.Completed == 0 && row.Failed > 0 {
		// Nothing answered: the next, heavier step would not either.
		d.dead = fmt.Sprintf("%s: all %d requests failed; first error: %s", what, row.Failed, firstError(outcome))
		d.stopped = d.dead
		return false
	}
	return true
}

// stepWords names a step in its progress line: "step 3 of 12:
// concurrency 4 (run 2 of 3)".
func (d *sweepDriver) stepWords(l float64, run int) string {
	what := fmt.Sprintf("step %d of %d: %s %s", d.n, d.total, d.kind, strconv.FormatFloat(l, 'f', -1, 64))
	switch rp := &d.o.f.repeat; {
	case rp.runs.auto:
		what = fmt.Sprintf("step %d of at most %d: %s %s (run %d of at most %d, --runs auto)", d.n, d.total, d.kind, strconv.FormatFloat(l, 'f', -1, 64), run, rp.maxRuns)
	case rp.runs.k > 1:
		what += fmt.Sprintf(" (run %d of %d)", run, rp.runs.k)
	}
	return what
}

// runFigures are the figures of each run at load l so far.
func (d *sweepDriver) runFigures(l float64) []map[string]float64 {
	var out []map[string]float64
	for i := range d.rows {
		if d.rows[i].Load == l {
			out = append(out, d.rows[i].Metrics)
		}
	}
	return out
}

// convergenceNote is the step line's word on --runs auto: how the
// deciding intervals stand after this run ("" for a fixed --runs).
func convergenceNote(c *stats.Convergence, more bool) string {
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

// stepPlan is the plan of the next step at level l: in worker mode this
// worker's share of it, and under --start-at its start instant on the
// clock schedule (sweep_worker.go).
func (d *sweepDriver) stepPlan(l float64) (*bench.Plan, error) {
	p := d.base.Step(d.stepLoad(l), d.stepRequests(l))
	p.NumWarmups = d.stepWarmups(l)
	if d.n > 1 {
		p.ReadyCheck = 0 // the endpoint answered the first step
	}
	p.StartAt = d.stepStart(d.n - 1)
	if w := d.o.w.info; w != nil {
		return p.Share(bench.Share{Index: w.Index, Count: w.Count})
	}
	return p, nil
}

// verdictNote is ", unresolved" after the last run of a load whose SLA
// verdict is unresolved (its interval straddles a limit), else "".
func (d *sweepDriver) verdictNote(l float64, last bool) string {
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

// stepName is the file name of a step's result (its records take
// .records.jsonl instead of .json); merge matches the steps of the
// workers of a sweep by it.
func stepName(kind capacity.Kind, l float64, run, runs int) string {
	if runs > 1 {
		return fmt.Sprintf("%s-%s-run%d.json", kind, strconv.FormatFloat(l, 'f', -1, 64), run)
	}
	return fmt.Sprintf("%s-%s.json", kind, strconv.FormatFloat(l, 'f', -1, 64))
}

// stepPhase is a step's phase label on the live Prometheus series: its
// load, as its file is named ("concurrency-16", "request_rate-4-run2"), so
// a dashboard or a query tells the steps apart by load, not by their
// order in the ladder ("step-6" said nothing of the load, and a refined
// ladder's sixth step is not the plain one's).
func stepPhase(kind capacity.Kind, l float64, run, runs int) string {
	return strings.TrimSuffix(stepName(kind, l, run, runs), ".json")
}

// stepLine is the one-line progress note after a step.
func stepLine(r *capacity.Row, sla capacity.SLA) string {
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
		s += fmt.Sprintf(" (throughput over the %.1fs steady window; whole run %.1f out tok/s)", *r.SteadyWindowS, r.RunThroughput["output_throughput"])
	}
	if r.HarnessLimited {
		s += " (client-limited: " + r.HarnessReason + ")"
	}
	return s
}

// cpuShare is the client's CPU use over the step's timed run as a share
// of the cores it may use (its self-check); nil where it was not measured.
func cpuShare(o *bench.Outcome) *float64 {
	v := o.SelfCheck.CPUShare()
	if v <= 0 {
		return nil
	}
	return &v
}
