package cli

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/sweep"
)

// run --runs K (docs/confidence.md, "Repeated runs"): sweep.Repeat.Run
// makes the runs; runsOf wires each as run wires its one run.

// runsUsage is run's --runs text.
const runsUsage = "repeat the whole benchmark K times on the same plan (same prompts and schedule; warm-ups before the first run only), or auto: until each deciding figure's 95% t interval is within --ci-width of its mean (at least 3, at most --max-runs runs; deciding: output token throughput, mean TTFT and mean TPOT, or with --goodput request goodput and the SLOs' means); prints vLLM's table of the last run and each figure's mean, std, se, t, interval and cv over the runs, saved as llmbench.run_stats (ours)"

// checkRepeat checks --runs and its companions (run only: sweep checks
// its own in checkSweep).
func (o *runOptions) checkRepeat(cmd *cobra.Command) error {
	fl := cmd.Flags()
	if o.sweepMode || fl.Lookup("runs") == nil {
		return nil
	}
	rp := &o.f.repeat
	if err := rp.check(fl.Changed("ci-width") || fl.Changed("max-runs")); err != nil {
		return err
	}
	if rp.repeated() && (o.w.count > 0 || fl.Changed("worker-index")) {
		return usageErrorf("--runs %s: a distributed run (--worker-count) is one run; start it again with a new --start-at", rp.runs.String())
	}
	return nil
}

// runsOf is run's sweep.Runner. It keeps the first run's date (every
// run's files carry it, so the files of one repetition sort together)
// and the last run's parts the result needs.
type runsOf struct {
	o      *runOptions
	env    *Env
	ui     *console
	date   string
	steady steadyStateOut
	extra  map[string]any
	srv    *serverRun
}

// runRepeated is run's loop under --runs: it makes the runs, then prints
// vLLM's table of the last one and the section over all of them, and
// saves the result (the last run's, with llmbench.run_stats,
// llmbench.runs and under auto llmbench.convergence) beside each run's
// own.
func (o *runOptions) runRepeated(ctx context.Context, env *Env, plan *bench.Plan, ui *console) error {
	if o.w.info != nil {
		return usageErrorf("--runs %s: a distributed run is one run; start it again with a new --start-at", o.f.repeat.runs.String())
	}
	deciding := capacity.DefaultDeciding
	if g, err := metrics.ParseGoodput(o.f.goodput); err == nil && len(g) > 0 {
		deciding = capacity.GoodputDeciding(g)
	}
	r := &runsOf{o: o, env: env, ui: ui}
	res, err := o.f.repeat.value().Run(ctx, plan, deciding, r, ui.errw)
	if err != nil {
		return err
	}
	return o.finishRuns(ctx, env, plan, res, r)
}

// RunOnce makes run k: records, execute, summarize, its own result.
func (r *runsOf) RunOnce(ctx context.Context, plan *bench.Plan, k int) (*bench.Outcome, *bench.Summary, string, error) {
	o, ui := r.o, r.ui
	now := time.Now().Format(bench.DateLayout)
	if r.date == "" {
		r.date = now
	}
	plan.Params.Date = r.date
	rec := o.recordsAt(plan, k, now)
	defer rec.close(nil) // a path that fails before the closing line still ends the file
	o.srv = o.startServer(ctx, ui.errw)
	outcome, err := o.execute(ctx, r.env, plan, ui, rec)
	o.srv.Stop()
	if err != nil {
		return nil, nil, "", err
	}
	sum, steady, err := o.summarize(plan, outcome, rec)
	if err != nil {
		return nil, nil, "", err
	}
	r.steady, r.srv, r.extra = steady, o.srv, map[string]any{selfCheckKey: selfCheckObject(outcome)}
	if o.f.users > 0 {
		r.extra[report.ExtrasKey+"/closed_loop"] = o.closedLoopObject(len(outcome.Records))
	}
	addServerExtras(o.srv, r.extra)
	saved, err := r.save(outcome, sum, k, rec)
	if err == nil {
		err = rec.Failed()
	}
	return outcome, sum, saved, err
}

// save saves run k's own result (-runK) when a result is saved.
func (r *runsOf) save(outcome *bench.Outcome, sum *bench.Summary, k int, rec *recordsOut) (string, error) {
	o, f := r.o, &r.o.f
	if rec.Path != "" && !rec.Temp && rec.Err() == nil {
		fmt.Fprintf(r.ui.errw, "  records saved to %s\n", rec.Path)
	}
	if !f.saveResult && !f.appendResult {
		return "", nil
	}
	obj, err := report.Result(sum.Metrics, &sum.Params, outcome.Records, report.ResultOptions{Detailed: f.saveDetailed,
		Extras: true, WithSteadyState: r.steady.write, SteadyState: r.steady.value})
	if err != nil {
		return "", err
	}
	report.SetExtras(obj, r.extra)
	path, err := report.SaveResult(f.resultDir, sweep.RunFile(o.resultName(&sum.Params), k), false, obj)
	if err != nil {
		return "", fmt.Errorf("saving run %d's result: %w", k, err)
	}
	rec.RemoveTemp()
	return path, nil
}

// finishRuns prints vLLM's table of the last run, the section over the
// runs, and saves the result; the exit status is the first run's that
// failed the exit policy, else the last's.
func (o *runOptions) finishRuns(ctx context.Context, env *Env, plan *bench.Plan, res *sweep.Repeated, r *runsOf) error {
	ui, last := r.ui, res.Last()
	o.srv = r.srv
	res.WriteHeader(ui.out)
	if err := o.render(ui, plan, last.Outcome, last.Summary, r.steady.value); err != nil {
		return err
	}
	extra, err := o.afterRun(ctx, ui, plan, last.Outcome, last.Summary)
	if err != nil {
		return err
	}
	maps.Copy(extra, r.extra)
	if err := res.WriteStats(ui.out); err != nil {
		return err
	}
	maps.Copy(extra, res.Extras())
	if err := o.save(ui.out, last.Summary.Metrics, &last.Summary.Params, last.Outcome.Records, extra, &recordsOut{}, r.steady); err != nil {
		return err
	}
	if err := o.writeHTML(ui.out, last.Summary, last.Outcome, extra); err != nil {
		return err
	}
	for _, run := range res.Runs {
		if err := o.exitPolicy(ctx, env, plan, run.Outcome, run.Summary.Metrics); err != nil {
			return err
		}
	}
	return nil
}
