package report

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// RecordsOutput says how to print the figures of records read back from
// a file (llmbench metrics).
type RecordsOutput struct {
	// JSON prints vLLM's result JSON (see ResultOptions for Detailed and
	// Extras) instead of vLLM's table and our sections.
	JSON, Detailed, Extras bool
	// Ours is llmbench's JSON-lines records, not the conformance input:
	// only they carry the data of the specifics and client-side sections
	// and of the steady state.
	Ours bool
	// WithSteadyState and SteadyState are metrics.RecordsSteadyState's
	// write and value.
	WithSteadyState bool
	SteadyState     *metrics.SteadyState
}

// WriteRecordsMetrics writes what llmbench metrics prints for records:
// vLLM's result JSON and a newline, or WriteRunReport's table and
// sections with the steady state under the table (RecordsReportOptions).
// In the JSON, steady_state is vLLM's Rust client's key, not Python's: it
// goes with our extras, so that without them the object is what vllm
// bench serve (Python) saves.
func WriteRecordsMetrics(w io.Writer, s *metrics.Summary, p *record.Params, recs []record.Record, o RecordsOutput) error {
	if o.JSON {
		opt := ResultOptions{Detailed: o.Detailed, Extras: o.Extras, WithSteadyState: o.WithSteadyState && o.Extras, SteadyState: o.SteadyState}
		if err := WriteResult(w, s, p, recs, opt); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	var opt RunReportOptions
	if o.Ours {
		opt = RecordsReportOptions(p, o.SteadyState)
	}
	return WriteRunReport(w, s, p, opt)
}

// RecordsReportOptions are WriteRunReport's options for llmbench records
// read back (llmbench metrics, merge): the specifics titled for the
// backend the params name (SageMaker when they name an endpoint), and the
// steady-state section under vLLM's table, where the run prints it (none
// for a nil ss).
func RecordsReportOptions(p *record.Params, ss *metrics.SteadyState) RunReportOptions {
	opt := RunReportOptions{Title: StreamSpecifics}
	if p.EndpointName != "" {
		opt.Title = SageMakerSpecifics
	}
	if ss != nil {
		opt.AfterTable = func(w io.Writer) error { return WriteSteadyState(w, ss) }
	}
	return opt
}

// WriteUnfinishedNote says, on w, when the figures of n records cover
// only part of a run: one that never wrote its closing line, or one
// interrupted by Ctrl-C.
func WriteUnfinishedNote(w io.Writer, p *record.Params, n int) {
	switch {
	case p.Unfinished:
		fmt.Fprintf(w, "Note: the run did not finish (stopped early, killed or crashed: the records file has no closing line): the figures cover the %d requests it recorded, and the duration (%.2f s) is estimated from their end times\n", n, p.DurationS)
	case p.Interrupted:
		fmt.Fprintln(w, "Note: this run was interrupted (Ctrl-C): the figures cover only the requests it finished")
	}
}
