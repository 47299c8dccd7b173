package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/sweep"
)

// run --runs K (docs/confidence.md, "Repeated runs"): sweep.Repeat.Run
// makes the runs; runsOf makes each as it makes run's only one
// (runOptions.once), and runOptions.finish prints and saves the last.

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
	if err := checkRepeat(fl, *rp); err != nil {
		return err
	}
	if rp.Planned() > 1 && (o.w.count > 0 || fl.Changed("worker-index")) {
		return usageErrorf("--runs %s: a distributed run (--worker-count) is one run; start it again with a new --start-at", rp.RunsValue())
	}
	return nil
}

// runsOf makes run's timed runs, the only one or each of --runs as
// run's sweep.Runner. It keeps the first run's date (every run's files
// carry it, so the files of one repetition sort together) and the last
// run.
type runsOf struct {
	o    *runOptions
	ui   *console
	date string
	last *oneRun
}

// once makes run k (0: the only run) into its records file, whose name
// is fixed now (its date is the plan's) so the file can carry it.
func (r *runsOf) once(ctx context.Context, plan *bench.Plan, k int) (*oneRun, error) {
	now := time.Now().Format(bench.DateLayout)
	if r.date == "" {
		r.date = now
	}
	plan.Params.Date = r.date
	return r.o.once(ctx, plan, r.ui, r.o.recordsAt(plan, k, now))
}

// runRepeated is run's loop under --runs: it makes the runs, then prints
// vLLM's table of the last one and the section over all of them, and
// saves the result (the last run's, with llmbench.run_stats,
// llmbench.runs and under auto llmbench.convergence) beside each run's
// own. The exit status is the first run's that failed the exit policy,
// else the last's.
func (o *runOptions) runRepeated(ctx context.Context, plan *bench.Plan, r *runsOf) error {
	if o.w.info != nil {
		return usageErrorf("--runs %s: a distributed run is one run; start it again with a new --start-at", o.f.repeat.RunsValue())
	}
	deciding := capacity.DefaultDeciding
	if g, err := metrics.ParseGoodput(o.f.goodput); err == nil && len(g) > 0 {
		deciding = capacity.GoodputDeciding(g)
	}
	res, err := o.f.repeat.Run(ctx, plan, deciding, r, r.ui.errw)
	if err != nil {
		return err
	}
	res.WriteHeader(r.ui.out)
	if err := o.finish(ctx, r.ui, plan, r.last, &recordsOut{}, res); err != nil {
		return err
	}
	for _, run := range res.Runs {
		if err := o.exitPolicy(ctx, plan, run.Outcome, run.Summary.Metrics); err != nil {
			return err
		}
	}
	return nil
}

// RunOnce makes run k of --runs and saves its own result.
func (r *runsOf) RunOnce(ctx context.Context, plan *bench.Plan, k int) (*bench.Outcome, *bench.Summary, string, error) {
	one, err := r.once(ctx, plan, k)
	if err != nil {
		return nil, nil, "", err
	}
	r.last = one
	saved, err := r.save(one, k)
	if err == nil {
		err = one.rec.Failed()
	}
	return one.outcome, one.sum, saved, err
}

// save saves run k's own result (-runK) when a result is saved.
func (r *runsOf) save(one *oneRun, k int) (string, error) {
	o, f, rec := r.o, &r.o.f, one.rec
	if rec.Path != "" && !rec.Temp && rec.Err() == nil {
		fmt.Fprintf(r.ui.errw, "  records saved to %s\n", rec.Path)
	}
	if !f.saveResult && !f.appendResult {
		return "", nil
	}
	obj, err := report.Result(one.sum.Metrics, &one.sum.Params, one.outcome.Records, report.ResultOptions{Detailed: f.saveDetailed,
		Extras: true, WithSteadyState: one.steady.Write, SteadyState: one.steady.Value})
	if err != nil {
		return "", err
	}
	report.SetExtras(obj, one.extra)
	path, err := report.SaveResult(f.resultDir, sweep.RunFile(o.resultName(&one.sum.Params), k), false, obj)
	if err != nil {
		return "", fmt.Errorf("saving run %d's result: %w", k, err)
	}
	rec.RemoveTemp()
	return path, nil
}
