package cli

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/stats"
	"github.com/llmbench/llmbench/internal/sweep"
)

// run --runs K (docs/confidence.md, "Repeated runs"): the whole
// benchmark K times on one plan — the same prompts and the same seeded
// schedule — each run with its own records file and self-check, the
// warm-ups and the ready check only before the first (the server is warm
// after it). Each run's figures are capacity.Figures, as a sweep step's;
// stats.RunsByKey makes run_stats of them, as for a sweep step's runs.

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

// oneRun is one run of run --runs: its outcome, figures and extras.
type oneRun struct {
	outcome *bench.Outcome
	sum     *bench.Summary
	steady  steadyStateOut
	figs    map[string]float64
	extra   map[string]any
	srv     *serverRun
	saved   string // the run's own result file ("" = not saved)
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
	var runs []*oneRun
	var figs []map[string]float64
	var conv *stats.Convergence
	date := ""
	deciding := o.deciding()
	for k := 1; ; k++ {
		r, err := o.runOnce(ctx, env, plan, ui, k, &date)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		if r.outcome.Interrupted {
			break // its figures are partial: shown, not counted
		}
		figs = append(figs, r.figs)
		more, c := o.f.repeat.next(figs, deciding)
		if c != nil {
			conv = c
		}
		fmt.Fprintf(ui.errw, "  %s%s\n", runLine(r), sweep.ConvergenceNote(c, more))
		if r.saved != "" {
			fmt.Fprintf(ui.errw, "  result saved to %s\n", r.saved)
		}
		if !more || r.sum.Metrics.Completed == 0 || ctx.Err() != nil {
			break // a run where nothing succeeded ends the repetition
		}
		plan.NumWarmups, plan.ReadyCheck = 0, 0 // warm from the first run
	}
	return o.finishRuns(ctx, env, plan, ui, runs, figs, conv)
}

// deciding is the figures --runs auto stops on: with --goodput request
// goodput and the SLOs' means, else capacity.DefaultDeciding.
func (o *runOptions) deciding() []string {
	if g, err := metrics.ParseGoodput(o.f.goodput); err == nil && len(g) > 0 {
		return capacity.GoodputDeciding(g)
	}
	return capacity.DefaultDeciding
}

// runOnce makes run k: records, execute, summarize, its own result.
func (o *runOptions) runOnce(ctx context.Context, env *Env, plan *bench.Plan, ui *console, k int, date *string) (*oneRun, error) {
	rp := &o.f.repeat
	of := fmt.Sprint(rp.runs.k)
	if rp.runs.auto {
		of = fmt.Sprintf("at most %d, --runs auto", rp.maxRuns)
	}
	fmt.Fprintf(ui.errw, "run %d of %s ...\n", k, of)
	rec, err := o.openRunRecords(plan, k, date)
	if err != nil {
		return nil, err
	}
	defer rec.close(nil) // a path that fails before the closing line still ends the file
	o.srv = o.startServer(ctx, ui.errw)
	outcome, err := o.execute(ctx, env, plan, ui, rec)
	o.srv.Stop()
	if err != nil {
		return nil, err
	}
	sum, steady, err := o.summarize(plan, outcome, rec)
	if err != nil {
		return nil, err
	}
	r := &oneRun{outcome: outcome, sum: sum, steady: steady, figs: capacity.Figures(sum.Metrics), srv: o.srv,
		extra: map[string]any{selfCheckKey: selfCheckObject(outcome)}}
	if o.f.users > 0 {
		r.extra[report.ExtrasKey+"/closed_loop"] = o.closedLoopObject(len(outcome.Records))
	}
	addServerExtras(o.srv, r.extra)
	if err := o.saveRun(ui, r, k, rec); err != nil {
		return nil, err
	}
	if err := rec.Failed(); err != nil {
		return nil, err
	}
	return r, nil
}

// openRunRecords opens run k's records file: the run's name with -runK
// (run-run2.records.jsonl); every run keeps the first run's date, so the
// files of one repetition sort together.
func (o *runOptions) openRunRecords(plan *bench.Plan, k int, date *string) (*recordsOut, error) {
	rec, err := o.openRecords(plan)
	if err != nil {
		return nil, err
	}
	if *date == "" {
		*date = plan.Params.Date
	}
	plan.Params.Date = *date
	switch {
	case o.f.saveRecordsPath != "" || rec.Temp:
		rec.Path = runFile(rec.Path, k)
	case rec.Path != "":
		name := runFile(o.resultName(&plan.Params), k)
		rec.Path = filepath.Join(o.f.resultDir, strings.TrimSuffix(name, filepath.Ext(name))+".records.jsonl")
	}
	return rec, nil
}

// runFile is a file name with -runK before its extension, as a sweep
// names its steps' runs: r.json is r-run2.json, r.records.jsonl
// r-run2.records.jsonl.
func runFile(name string, k int) string {
	ext := filepath.Ext(name)
	if strings.HasSuffix(name, ".records.jsonl") {
		ext = ".records.jsonl"
	}
	return fmt.Sprintf("%s-run%d%s", strings.TrimSuffix(name, ext), k, ext)
}

// saveRun saves run k's own result (-runK) when a result is saved.
func (o *runOptions) saveRun(ui *console, r *oneRun, k int, rec *recordsOut) error {
	f := &o.f
	if rec.Path != "" && !rec.Temp && rec.Err() == nil {
		fmt.Fprintf(ui.errw, "  records saved to %s\n", rec.Path)
	}
	if !f.saveResult && !f.appendResult {
		return nil
	}
	obj, err := report.Result(r.sum.Metrics, &r.sum.Params, r.outcome.Records, report.ResultOptions{Detailed: f.saveDetailed,
		Extras: true, WithSteadyState: r.steady.write, SteadyState: r.steady.value})
	if err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(r.extra)) {
		report.SetExtra(obj, key, r.extra[key])
	}
	path, err := report.SaveResult(f.resultDir, runFile(o.resultName(&r.sum.Params), k), false, obj)
	if err != nil {
		return fmt.Errorf("saving run %d's result: %w", k, err)
	}
	r.saved = path
	rec.RemoveTemp()
	return nil
}

// finishRuns prints vLLM's table of the last run, the section over the
// runs, and saves the result; the exit status is the first run's that
// failed the exit policy, else the last's.
func (o *runOptions) finishRuns(ctx context.Context, env *Env, plan *bench.Plan, ui *console, runs []*oneRun, figs []map[string]float64, conv *stats.Convergence) error {
	last := runs[len(runs)-1]
	o.srv = last.srv
	fmt.Fprintf(ui.out, "vLLM's table below is run %d of %d; the section after it covers the %d complete runs.\n", len(runs), len(runs), len(figs))
	if err := o.render(ui, plan, last.outcome, last.sum, last.steady.value); err != nil {
		return err
	}
	extra, err := o.afterRun(ctx, ui, plan, last.outcome, last.sum)
	if err != nil {
		return err
	}
	maps.Copy(extra, last.extra)
	rs := stats.RunsByKey(figs, stats.DefaultConfidence)
	if err := report.WriteRunStats(ui.out, last.sum.Metrics, rs, len(figs), conv); err != nil {
		return err
	}
	extra[report.ExtrasKey+"/"+report.RunStatsKey] = rs
	setRunsExtrasMap(extra, figs, conv)
	if err := o.save(ui.out, last.sum.Metrics, &last.sum.Params, last.outcome.Records, extra, &recordsOut{}, last.steady); err != nil {
		return err
	}
	if err := o.writeHTML(ui.out, last.sum, last.outcome, extra); err != nil {
		return err
	}
	for _, r := range runs {
		if err := o.exitPolicy(ctx, env, plan, r.outcome, r.sum.Metrics); err != nil {
			return err
		}
	}
	return nil
}

// runLine is a run's one-line summary.
func runLine(r *oneRun) string {
	m := r.figs
	s := fmt.Sprintf("%d completed, %d failed, %.1f out tok/s, mean TTFT %.1f ms, mean TPOT %.1f ms, p99 TTFT %.1f ms",
		r.sum.Metrics.Completed, r.sum.Metrics.Failed, m["output_throughput"], m["mean_ttft_ms"], m["mean_tpot_ms"], m["p99_ttft_ms"])
	if v, ok := m["request_goodput"]; ok {
		s += fmt.Sprintf(", goodput %.2f req/s", v)
	}
	return s + ", self-check " + string(r.outcome.Verdict.Verdict)
}

// setRunsExtrasMap puts the same keys in a run's extras.
func setRunsExtrasMap(extra map[string]any, figs []map[string]float64, conv *stats.Convergence) {
	maps.Copy(extra, report.RunsExtras(figs, conv))
}
