package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/load"
)

// One step: its load, size, warm-ups, plan and names, and the run that
// turns it into a row.

// window is when one step's timed run went on (wall clock), for
// CloudWatch.
type window struct{ start, end time.Time }

// stepLoad is the bench load of one step at level l.
func (d *Driver) stepLoad(l float64) bench.Load {
	c := &d.cfg
	bl := bench.Load{Arrivals: d.base.Load.Arrivals, Duration: c.StepDuration << d.longer[l]}
	switch c.Kind {
	case capacity.Concurrency:
		u := load.Concurrency(int(l))
		bl.Users = &u
	case capacity.Users:
		u := load.Users{Users: int(l), Think: c.Think, SpawnRate: c.SpawnRate, Seed: c.Seed}
		bl.Users = &u
	default:
		bl.Arrivals.Rate = l
		bl.Arrivals.RampStrategy = ""
		// A rate step keeps run's --max-concurrency: the dispatcher holds
		// requests back before their clock starts (vLLM's semaphore), as
		// the connection pool, sized by the same cap, would otherwise do
		// inside their TTFT.
		bl.MaxConcurrency = d.base.Load.MaxConcurrency
	}
	return bl
}

// stepRequests is how many requests a step at level l sends: under
// --step-duration as many as the time allows (a plan of requests is
// cycled), else --prompts-per-step or a default that gives each level
// enough requests to reach a steady state and every percentile of the
// SLA the requests it needs (capacity.MinRequests: 100 for a p99).
func (d *Driver) stepRequests(l float64) int {
	return d.baseRequests(l) << d.longer[l]
}

// baseRequests is stepRequests before --refine lengthened the step.
func (d *Driver) baseRequests(l float64) int {
	c := &d.cfg
	least := max(32, c.SLA.MinRequestsFor())
	switch {
	case c.PromptsPerStep > 0:
		return c.PromptsPerStep
	case c.StepDuration > 0 && c.Kind == capacity.RequestRate:
		return int(math.Ceil(l * (c.StepDuration << d.longer[l]).Seconds()))
	case c.StepDuration > 0:
		return len(d.base.Requests) // cycled until the time is up
	case c.Kind == capacity.RequestRate:
		return max(least, int(math.Ceil(l*20)))
	}
	return max(least, 8*int(l))
}

// stepWarmups is --step-warmup, or the load itself (at most 64), so the
// server's batch is full before the step's clock starts.
func (d *Driver) stepWarmups(l float64) int {
	if d.cfg.StepWarmup >= 0 {
		return d.cfg.StepWarmup
	}
	return max(1, min(64, int(math.Ceil(l))))
}

// stepPlan is the plan of the next step at level l (run run of it): in
// worker mode this worker's share of it, and under --start-at its start
// instant on the clock schedule.
func (d *Driver) stepPlan(l float64, run int) (*bench.Plan, error) {
	p := d.base.Step(d.stepLoad(l), d.stepRequests(l), d.idTag(l, run))
	p.NumWarmups = d.stepWarmups(l)
	if d.n > 1 {
		p.ReadyCheck = 0 // the endpoint answered the first step
	}
	p.StartAt = d.stepStart(d.n - 1)
	if w := d.cfg.Worker; w != nil {
		return p.Share(bench.Share{Index: w.Index, Count: w.Count})
	}
	return p, nil
}

// stepStart is step k's start instant (k from 0, every run of every
// load counted) on the clock schedule; zero without --start-at.
func (d *Driver) stepStart(k int) time.Time {
	at := d.cfg.StartAt
	if at.IsZero() {
		return at
	}
	return at.Add(time.Duration(k) * (d.cfg.StepDuration + d.cfg.StepGap))
}

// step runs one step and adds its row; ok is false when the sweep must
// stop (interrupted, or the step could not run), more whether the load
// wants another run (--runs).
func (d *Driver) step(ctx context.Context, l float64, run int) (ok, more bool) {
	if !d.runStep(ctx, l, run) {
		return false, false
	}
	return ctx.Err() == nil, d.more
}

// runStep is step's body: it sets d.more.
func (d *Driver) runStep(ctx context.Context, l float64, run int) bool {
	d.n++
	d.more = false
	what := d.stepWords(l, run)
	p, err := d.stepPlan(l, run)
	if err != nil {
		d.stopped = fmt.Sprintf("%s: %v", what, err)
		fmt.Fprintln(d.errw, "  "+d.stopped)
		return false
	}
	fmt.Fprintf(d.errw, "%s ...\n", what)
	runs := d.cfg.Repeat.Planned()
	name := Name(d.cfg.Kind, l, run, runs)
	outcome, st, err := d.steps.RunStep(ctx, p, Phase(d.cfg.Kind, l, run, runs), d.recordsPath(name))
	if err != nil {
		d.stopped = fmt.Sprintf("%s failed: %v", what, err)
		if e := (*bench.EndpointError)(nil); errors.As(err, &e) {
			// The first requests all failed alike: past the first step,
			// the server that answered before has stopped.
			d.dead = fmt.Sprintf("%s: %v", what, err)
		}
		fmt.Fprintln(d.errw, "  "+d.stopped)
		return false
	}
	if outcome.Interrupted {
		d.keepInterrupted(p, outcome, stepInfo{load: l, run: run, name: name, step: st}, what)
		return false
	}
	warn := d.lateNote(outcome)
	row, err := d.rowOf(p, outcome, stepInfo{load: l, run: run, name: name, step: st, warn: warn})
	if err != nil {
		d.stopped = fmt.Sprintf("%s: %v", what, err)
		return false
	}
	d.rows = append(d.rows, row)
	d.windows = append(d.windows, window{outcome.Start, outcome.Start.Add(outcome.Duration)})
	more, conv := d.cfg.Repeat.Next(d.runFigures(l), d.cfg.SLA.Deciding())
	d.rows[len(d.rows)-1].Convergence = conv
	if !more {
		if err := d.saveRuns(conv); err != nil {
			d.stopped = fmt.Sprintf("%s: %v", what, err)
			return false
		}
	}
	if an, err := capacity.Analyze(d.cfg.Kind, d.cfg.SLA, d.rows); err == nil {
		d.an = an
	}
	fmt.Fprintf(d.errw, "  %s%s%s%s\n", StepLine(&row, d.cfg.SLA), d.verdictNote(l, !more), ConvergenceNote(conv, more), d.etaNote(&row))
	d.more = more
	if row.Completed == 0 && row.Failed > 0 {
		// Nothing answered: the next, heavier step would not either.
		d.dead = fmt.Sprintf("%s: all %d requests failed; first error: %s", what, row.Failed, outcome.FirstError())
		d.stopped = d.dead
		return false
	}
	return true
}

// keepInterrupted keeps what a step stopped by Ctrl-C measured, as run
// keeps an interrupted run (README.md): its partial result, marked
// interrupted, saved under the step's name (its records, when kept,
// closed as an interrupted run's), left out of the analysis, which
// covers only whole steps; d.stopped and the sweep's notes name it.
func (d *Driver) keepInterrupted(p *bench.Plan, o *bench.Outcome, si stepInfo, what string) {
	row, err := d.rowOf(p, o, si)
	if err != nil {
		d.interrupted = fmt.Sprintf("%s was interrupted; its partial result could not be saved (%v)", what, err)
	} else {
		d.interrupted = fmt.Sprintf("%s was interrupted after %d completed requests (%d failed): its partial result, marked interrupted, is saved to %s",
			what, row.Completed, row.Failed, row.ResultFile)
	}
	d.stopped = d.interrupted + "; it is left out of the analysis"
}

// idTag is what follows the id prefix in the ids of the step at load l
// (run run): the step's name and, when --refine lengthened it, how many
// times longer it is ("concurrency-8-", "request_rate-2.5-run2-",
// "concurrency-16-x2-"), so that no two requests of a sweep share an id
// and an id names the step whose records hold it (docs/records.md).
func (d *Driver) idTag(l float64, run int) string {
	tag := Phase(d.cfg.Kind, l, run, d.cfg.Repeat.Planned()) + "-"
	if k := d.longer[l]; k > 0 {
		tag += fmt.Sprintf("x%d-", 1<<k)
	}
	return tag
}

// recordsPath is where a step's per-request records stream: beside its
// result (NAME.records.jsonl), where llmbench merge reads them; "" when
// they are not kept.
func (d *Driver) recordsPath(name string) string {
	if !d.cfg.KeepRecords {
		return ""
	}
	return filepath.Join(d.dir, strings.TrimSuffix(name, ".json")+".records.jsonl")
}

// runFigures are the figures of each run at load l so far.
func (d *Driver) runFigures(l float64) []map[string]float64 {
	var out []map[string]float64
	for i := range d.rows {
		if d.rows[i].Load == l {
			out = append(out, d.rows[i].Metrics)
		}
	}
	return out
}

// Name is the file name of a step's result (its records take
// .records.jsonl instead of .json); merge matches the steps of the
// workers of a sweep by it.
func Name(kind capacity.Kind, l float64, run, runs int) string {
	if runs > 1 {
		return fmt.Sprintf("%s-%s-run%d.json", kind, strconv.FormatFloat(l, 'f', -1, 64), run)
	}
	return fmt.Sprintf("%s-%s.json", kind, strconv.FormatFloat(l, 'f', -1, 64))
}

// Phase is a step's phase label on the live Prometheus series: its
// load, as its file is named ("concurrency-16", "request_rate-4-run2"), so
// a dashboard or a query tells the steps apart by load, not by their
// order in the ladder ("step-6" said nothing of the load, and a refined
// ladder's sixth step is not the plain one's).
func Phase(kind capacity.Kind, l float64, run, runs int) string {
	return strings.TrimSuffix(Name(kind, l, run, runs), ".json")
}
