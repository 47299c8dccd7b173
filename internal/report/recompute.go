package report

import (
	"fmt"
	"io"
	"time"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// Recompute is llmbench metrics: the figures of a records file recomputed
// and printed as the run printed them (README, "llmbench metrics").
type Recompute struct {
	// Overrides are the settings given over the file's params, applied
	// as of Now (metrics.Overrides.Apply: --date defaults to it).
	Overrides metrics.Overrides
	Now       time.Time
	// Format is table (vLLM's table and our sections), json (vLLM's
	// result JSON) or filename (vLLM's automatic result file name).
	Format string
	// Detailed keeps the per-request arrays in the JSON; Extras, when
	// set, says whether the llmbench object follows (nil: for llmbench
	// records, not for the conformance input).
	Detailed bool
	Extras   *bool
	// SteadyState are run's steady-state settings, which records do not
	// keep (metrics.RecordsSteadyState; llmbench records only).
	SteadyState metrics.SteadyStateOptions
}

// InputError is Recompute's error for input it cannot use: an unreadable
// file, a bad override, records that cannot be summarized. Other errors
// are the writers'.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Run reads path ("-": stdin) and writes its figures on out, the
// warnings and the note on unfinished requests on errw.
func (r *Recompute) Run(path string, stdin io.Reader, out, errw io.Writer) error {
	p, recs, format, err := record.ReadPath(path, stdin)
	if err != nil {
		return &InputError{Err: err}
	}
	if err := r.Overrides.Apply(&p, r.Now); err != nil {
		return &InputError{Err: err}
	}
	if r.Format == "filename" {
		_, err := fmt.Fprintln(out, ResultFilename(&p))
		return err
	}
	s, err := metrics.SummarizeRecords(&p, recs)
	if err != nil {
		return &InputError{Err: err}
	}
	if err := WriteWarnings(errw, s); err != nil {
		return err
	}
	WriteUnfinishedNote(errw, &p, len(recs))
	o := RecordsOutput{JSON: r.Format == "json", Detailed: r.Detailed, Ours: format == record.FormatJSONLines}
	o.Extras = o.Ours
	if r.Extras != nil {
		o.Extras = *r.Extras
	}
	if o.Ours {
		if o.SteadyState, o.WithSteadyState, err = metrics.RecordsSteadyState(&p, recs, s, r.SteadyState); err != nil {
			return &InputError{Err: err}
		}
	}
	return WriteRecordsMetrics(out, s, &p, recs, o)
}
