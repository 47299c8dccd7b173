package cli

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
)

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
func (o *runOptions) render(ui *console, plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary, steady *metrics.SteadyState) error {
	failures, canceled := bench.FailuresView(s.Metrics, outcome)
	err := report.WriteRun(ui.out, ui.errw, report.RunView{Summary: s.Metrics, Params: &s.Params,
		Failures: failures, Canceled: canceled, Grace: bench.DefaultGrace,
		Interrupted: outcome.Interrupted, Finished: len(outcome.Records), Planned: len(plan.Requests),
		Timed: plan.Load.Duration > 0, CanceledAtEnd: outcome.Canceled(),
		SageMaker: plan.Kind == bench.SageMaker, FromIntended: o.f.fromIntended, Steady: steady})
	if err != nil {
		return err
	}
	if err := report.WriteServerSection(ui.out, o.srv); err != nil {
		return err
	}
	writeSelfCheck(ui.out, outcome)
	o.srv.WriteCheck(ui.out)
	if plan.Tokenizer == nil && !o.resolved.Tokenizer.Skip {
		fmt.Fprintln(ui.out, "Note: no tokenizer: prompt lengths are approximate (word-based); output counts come from the server's usage frames (fallback-1 where there were none).")
	}
	return nil
}
