package cli

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
)

// printBanner prints what vLLM prints before the run. Python's str() of a
// float is its repr ("inf", "10.0").
func (o *runOptions) printBanner(out io.Writer) {
	l := &o.resolved.Load
	if u := l.Users; u != nil {
		// A closed loop has no request rate or burstiness: vLLM's lines
		// would say "inf" and "Poisson process" of a run that had
		// neither (issue 29).
		fmt.Fprintf(out, "Closed loop: %s\n", o.closedLoopWords())
		fmt.Fprintf(out, "Maximum request concurrency: %d\n", u.Users)
		return
	}
	a := &l.Arrivals
	burstKind := "Gamma distribution"
	if a.Burstiness == 1 {
		burstKind = "Poisson process"
	}
	conc := "None"
	if l.MaxConcurrency > 0 {
		conc = strconv.Itoa(l.MaxConcurrency)
	}
	if a.RampStrategy != "" {
		fmt.Fprintf(out, "Traffic ramp-up strategy: %s.\n", a.RampStrategy)
		fmt.Fprintf(out, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", a.RampStartRPS, a.RampEndRPS)
	} else {
		fmt.Fprintf(out, "Traffic request rate: %s\n", report.PyRepr(a.Rate))
	}
	fmt.Fprintf(out, "Burstiness factor: %s (%s)\n", report.PyRepr(a.Burstiness), burstKind)
	fmt.Fprintf(out, "Maximum request concurrency: %s\n", conc)
}

// closedLoopWords describes a --users run: "16 users, think time
// 1s-3s, 5 started per second, for 20s (the first 5s left out)".
func (o *runOptions) closedLoopWords() string {
	sp := o.resolved
	u := sp.Load.Users
	s := fmt.Sprintf("%d users", u.Users)
	if u.Think.Max > 0 {
		s += ", think time " + u.Think.String()
	} else {
		s += ", no think time"
	}
	if u.SpawnRate > 0 {
		s += ", " + strconv.FormatFloat(u.SpawnRate, 'f', -1, 64) + " started per second"
	} else {
		s += ", all started at once"
	}
	if d := sp.Load.Duration; d > 0 {
		s += ", for " + d.String()
		if u.Warmup > 0 {
			s += " (the first " + u.Warmup.String() + " left out)"
		}
	} else {
		s += fmt.Sprintf(", %d requests", sp.Dataset.NumPrompts)
	}
	return s
}

// render prints the warnings, the failures, vLLM's table and our sections.
func (o *runOptions) render(ui *console, plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary, steady *metrics.SteadyState) error {
	sum, out := s.Metrics, ui.out
	failures, canceled := bench.FailuresView(sum, outcome)
	if err := report.WriteWarnings(ui.errw, failures); err != nil {
		return err
	}
	if canceled > 0 {
		fmt.Fprintf(out, "Interrupted: %d requests in flight were canceled after the %v grace period; they count as failed (class canceled).\n", canceled, bench.DefaultGrace)
	}
	if n := outcome.Canceled(); !outcome.Interrupted && plan.Load.Duration > 0 && n > 0 {
		fmt.Fprintf(ui.errw, "Note: %d requests still in flight %v after --duration ended were canceled; they count as failed (class canceled).\n", n, bench.DefaultGrace)
	}
	opt := report.RunReportOptions{Title: report.StreamSpecifics, FromIntended: o.f.fromIntended, Failures: failures}
	if plan.Kind == bench.SageMaker {
		opt.Title = report.SageMakerSpecifics
	}
	if outcome.Interrupted {
		opt.AfterTable = func(w io.Writer) error {
			// Also on stdout: a table redirected to a file must say it is partial.
			_, err := fmt.Fprintf(w, "Note: interrupted (Ctrl-C): the figures above cover the %d of %d requests that finished or failed.\n", len(outcome.Records), len(plan.Requests))
			return err
		}
	}
	if steady != nil {
		// Under vLLM's table, where vLLM's Rust client prints it.
		note := opt.AfterTable
		opt.AfterTable = func(w io.Writer) error {
			if note != nil {
				if err := note(w); err != nil {
					return err
				}
			}
			return report.WriteSteadyState(w, steady)
		}
	}
	if err := report.WriteRunReport(out, sum, &s.Params, opt); err != nil {
		return err
	}
	if err := writeServerSection(out, o.srv); err != nil {
		return err
	}
	writeSelfCheck(out, outcome)
	o.srv.WriteCheck(out)
	if plan.Tokenizer == nil && !o.resolved.Tokenizer.Skip {
		fmt.Fprintln(out, "Note: no tokenizer: prompt lengths are approximate (word-based); output counts come from the server's usage frames (fallback-1 where there were none).")
	}
	return nil
}

// meanMs is the mean of a reported metric in ms, NaN when not reported.
func meanMs(s *metrics.Summary, name string) float64 {
	for _, m := range s.Metrics {
		if m.Metric == name {
			return m.Mean
		}
	}
	return math.NaN()
}
