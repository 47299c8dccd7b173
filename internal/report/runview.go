package report

import (
	"fmt"
	"io"
	"time"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// RunView is what `llmbench run` prints of a finished run up to vLLM's
// table and our sections under it: the warnings and the notes on
// canceled requests, the table, the partial-figures note of an
// interrupted run and the steady state.
type RunView struct {
	Summary *metrics.Summary
	Params  *record.Params
	// Failures is the summary the warnings and failure lines come from
	// (bench.FailuresView; nil: Summary); Canceled the requests an interrupt canceled,
	// counted apart from it.
	Failures *metrics.Summary
	Canceled int
	// Grace is how long requests in flight were given at the end.
	Grace time.Duration
	// Interrupted says Ctrl-C ended the run: Finished of Planned requests
	// finished or failed.
	Interrupted       bool
	Finished, Planned int
	// Timed says --duration bounded the run; CanceledAtEnd counts the
	// requests it canceled Grace after it ended (or an interrupt did).
	Timed         bool
	CanceledAtEnd int
	// SageMaker titles the specifics section for a SageMaker endpoint.
	SageMaker    bool
	FromIntended bool
	// Steady, when set, is printed under vLLM's table, where vLLM's Rust
	// client prints it.
	Steady *metrics.SteadyState
}

// WriteRun writes v: the warnings and the duration note on errw, the rest
// on out.
func WriteRun(out, errw io.Writer, v RunView) error {
	if v.Failures == nil {
		v.Failures = v.Summary
	}
	if err := WriteWarnings(errw, v.Failures); err != nil {
		return err
	}
	if v.Canceled > 0 {
		fmt.Fprintf(out, "Interrupted: %d requests in flight were canceled after the %v grace period; they count as failed (class canceled).\n", v.Canceled, v.Grace)
	}
	if n := v.CanceledAtEnd; !v.Interrupted && v.Timed && n > 0 {
		fmt.Fprintf(errw, "Note: %d requests still in flight %v after --duration ended were canceled; they count as failed (class canceled).\n", n, v.Grace)
	}
	opt := RunReportOptions{Title: StreamSpecifics, FromIntended: v.FromIntended, Failures: v.Failures}
	if v.SageMaker {
		opt.Title = SageMakerSpecifics
	}
	opt.AfterTable = v.afterTable
	return WriteRunReport(out, v.Summary, v.Params, opt)
}

// afterTable writes the notes under vLLM's table: that the figures are
// partial (also on stdout: a table redirected to a file must say so),
// then the steady state.
func (v RunView) afterTable(w io.Writer) error {
	if v.Interrupted {
		if _, err := fmt.Fprintf(w, "Note: interrupted (Ctrl-C): the figures above cover the %d of %d requests that finished or failed.\n", v.Finished, v.Planned); err != nil {
			return err
		}
	}
	if v.Steady != nil {
		return WriteSteadyState(w, v.Steady)
	}
	return nil
}
