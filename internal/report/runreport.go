package report

import (
	"io"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// RunReportOptions shape WriteRunReport.
type RunReportOptions struct {
	// Title is the specifics section's title (StreamSpecifics or
	// SageMakerSpecifics); "" leaves out the specifics and the
	// client-side sections (conformance input carries no data for them).
	Title string
	// FromIntended adds TTFT and E2EL from the intended send time to the
	// client-side section.
	FromIntended bool
	// Failures, when set, is the summary the failure lines come from (a
	// run interrupted by Ctrl-C leaves out the requests it canceled);
	// nil = the summary itself.
	Failures *metrics.Summary
	// AfterTable, when set, writes right under vLLM's table (a note that
	// the figures are partial).
	AfterTable func(io.Writer) error
}

// WriteRunReport writes what `llmbench run` prints after a run and
// `llmbench metrics` prints for a records file: vLLM's failure lines and
// result table, then our confidence-interval, specifics and client-side
// sections.
func WriteRunReport(w io.Writer, s *metrics.Summary, p *record.Params, opt RunReportOptions) error {
	failures := opt.Failures
	if failures == nil {
		failures = s
	}
	if err := WriteFailures(w, failures); err != nil {
		return err
	}
	if err := WriteTable(w, s, p); err != nil {
		return err
	}
	if opt.AfterTable != nil {
		if err := opt.AfterTable(w); err != nil {
			return err
		}
	}
	if opt.Title == "" {
		return nil
	}
	if err := writeLines(w, ConfidenceLines(s)); err != nil {
		return err
	}
	if err := WriteSpecifics(w, opt.Title, s); err != nil {
		return err
	}
	return WriteClientTiming(w, s, opt.FromIntended)
}
