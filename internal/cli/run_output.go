package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/internal/afterrun"
	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/sweep"
)

// What a run writes: vLLM's table and our sections, the records file
// while it goes on, the result and the HTML report after it.

// printBanner prints what vLLM prints before the run (report.Banner).
func (o *runOptions) printBanner(out io.Writer) {
	l := &o.resolved.Load
	b := report.Banner{Arrivals: l.Arrivals, MaxConcurrency: l.MaxConcurrency}
	if l.Users != nil {
		b.ClosedLoop = o.closedLoopRun()
	}
	b.Write(out)
}

// closedLoopRun is the --users run the Spec describes.
func (o *runOptions) closedLoopRun() *report.ClosedLoop {
	sp := o.resolved
	return &report.ClosedLoop{Users: sp.Load.Users, Duration: sp.Load.Duration, Prompts: sp.Dataset.NumPrompts}
}

// render prints the warnings, the failures, vLLM's table and our sections.
func (o *runOptions) render(ui *console, plan *bench.Plan, one *oneRun) error {
	outcome, s := one.outcome, one.sum
	failures, canceled := bench.FailuresView(s.Metrics, outcome)
	err := report.WriteRun(ui.out, ui.errw, report.RunView{Summary: s.Metrics, Params: &s.Params,
		Failures: failures, Canceled: canceled, Grace: bench.DefaultGrace,
		Interrupted: outcome.Interrupted, Finished: len(outcome.Records), Planned: len(plan.Requests),
		Timed: plan.Load.Duration > 0, CanceledAtEnd: outcome.Canceled(),
		SageMaker: plan.Kind == bench.SageMaker, FromIntended: o.f.fromIntended, Steady: one.steady.Value})
	if err != nil {
		return err
	}
	if err := report.WriteServerSection(ui.out, o.srv); err != nil {
		return err
	}
	report.WriteSelfCheck(ui.out, outcome.Verdict, &outcome.SelfCheck, outcome.Preconnected)
	o.srv.WriteCheck(ui.out)
	if plan.Tokenizer == nil && !o.resolved.Tokenizer.Skip {
		fmt.Fprintln(ui.out, "Note: no tokenizer: prompt lengths are approximate (word-based); output counts come from the server's usage frames (fallback-1 where there were none).")
	}
	return nil
}

// prepareOutputDirs creates the folders the result and records files go
// to before anything is sent, so a bad --result-dir fails at once rather
// than after a long run whose result then cannot be written.
func (o *runOptions) prepareOutputDirs() error {
	f := &o.f
	result := ""
	if f.saveResult || f.appendResult {
		result = filepath.Join(f.resultDir, o.resultFilename()+"x") // the name may hold a folder
	}
	if err := report.MakeDirs(result, f.saveRecordsPath); err != nil {
		return usageErrorf("cannot create the folder for saved results: %v", err)
	}
	return nil
}

// afterRun adds what the endpoint's provider says after the run
// (afterrun.Endpoint.Write: the SageMaker description, CloudWatch, cost,
// the reminder) and returns the result's extra keys; a run that cannot be
// priced is a usage error.
func (o *runOptions) afterRun(ctx context.Context, ui *console, plan *bench.Plan, one *oneRun) (map[string]any, error) {
	outcome, sum := one.outcome, one.sum.Metrics
	run := afterrun.Run{Start: outcome.Start, Duration: outcome.Duration, Invocations: len(outcome.Records) + o.resolved.NumWarmups,
		Completed: sum.Completed, OutputTokens: sum.TotalOutput, MeanE2ELms: sum.MeanOf(metrics.E2EL), MeanTTFTms: sum.MeanOf(metrics.TTFT)}
	extra, err := o.sm.provider(plan.Kind == bench.SageMaker).Write(ctx, ui.out, ui.errw, run)
	var costErr *afterrun.CostError
	if errors.As(err, &costErr) {
		return nil, &UsageError{Err: costErr.Err}
	}
	return extra, err
}

// save writes the result JSON when asked (report.SaveRun); the records
// went to disk while the run went on (recordsOut).
func (o *runOptions) save(out io.Writer, one *oneRun, extra map[string]any, rec *recordsOut) error {
	f, p, steady := &o.f, &one.sum.Params, one.steady
	saved, err := report.SaveRun(out, one.sum.Metrics, p, one.outcome.Records, report.RunFiles{Dir: f.resultDir, Name: o.resultName(p),
		Save: f.saveResult, Append: f.appendResult, Extra: extra,
		Options: report.ResultOptions{Detailed: f.saveDetailed, Extras: true, WithSteadyState: steady.Write, SteadyState: steady.Value},
		Records: report.RecordsFile{Path: rec.Path, Named: f.saveRecordsPath != "", Temp: rec.Temp, Whole: rec.Err() == nil}})
	if saved {
		rec.RemoveTemp()
	}
	return err
}

// writeHTML writes --html: the run page of the report, from the records
// in memory (so it needs no saved file).
func (o *runOptions) writeHTML(out io.Writer, one *oneRun, extra map[string]any) error {
	path := o.f.htmlPath
	if path == "" {
		return nil
	}
	s, name := one.sum, o.resultName(&one.sum.Params)
	err := writeUserFile(path, func(w io.Writer) error {
		return htmlreport.WriteRun(w, name, s.Metrics, &s.Params, one.outcome.Records, extra, htmlreport.Options{Title: "llmbench run: " + name})
	})
	if err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	fmt.Fprintf(out, "HTML report written to %s\n", path)
	return nil
}

// resultName is --result-filename, or vLLM's name for the run; a --users
// run is named after its users (report.UsersFilename).
func (o *runOptions) resultName(p *record.Params) string {
	if name := o.resultFilename(); name != "" {
		return name
	}
	if u := o.resolved.Load.Users; u != nil {
		return report.UsersFilename(p, u.Users)
	}
	return report.ResultFilename(p)
}

// recordsOut is the file a run's records stream to while it goes on
// (recfile.File, docs/records.md; where: recfile.Place).
type recordsOut struct{ recfile.File }

// recordsAt is the records file of run k of --runs (0: the only run),
// -runK in its name (sweep.RunFile); tempDate names a temporary one.
func (o *runOptions) recordsAt(plan *bench.Plan, k int, tempDate string) *recordsOut {
	f := &o.f
	run := func(name string) string {
		if k == 0 || name == "" {
			return name
		}
		return sweep.RunFile(name, k)
	}
	pl := recfile.Place{Path: run(f.saveRecordsPath), Dir: f.resultDir, Detailed: f.saveDetailed}
	if f.saveResult || f.appendResult {
		pl.Result = run(o.resultName(&plan.Params))
	}
	rec := &recordsOut{pl.File(tempDate, os.Getpid())}
	rec.Worker = o.w.headerInfo
	if rec.Temp {
		rec.Path = run(rec.Path)
	}
	return rec
}

// checkSteadyStateFlags checks --steady-state-threshold and
// --steady-state-min-window (run, sweep and metrics:
// metrics.CheckSteadyState).
func checkSteadyStateFlags(threshold float64, minWindow flagset.OptFloat) error {
	if err := metrics.CheckSteadyState(threshold, minWindow.Ptr()); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// selfCheckKey is where the self-check goes in the result: the llmbench
// object's self_check (see report.SetExtra).
const selfCheckKey = report.ExtrasKey + "/" + report.SelfCheckKey

// wrapFileWriter, when set (tests only), stands between what writes a
// user's file (writeUserFile, the records stream) and the file: a writer
// that fails plays a full disk.
var wrapFileWriter func(io.Writer) io.Writer

// writeUserFile writes a file the user asked for (a report, a merged
// result's records, a sweep's JSON, CSV and HTML) through package
// atomicfile: mode 0600 as every saved file (report.FileMode: they hold
// server text), a temporary file in the same folder, fsync, rename; so a
// full disk or a failed render leaves what the path held before, never a
// cut file, and a symlink at the path is replaced, not written through.
func writeUserFile(path string, fill func(io.Writer) error) error {
	return atomicfile.Write(path, report.FileMode, func(w io.Writer) error {
		if wrapFileWriter != nil {
			w = wrapFileWriter(w)
		}
		return fill(w)
	})
}
