package merge

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// InputError is a merge refused for what it was given (files that do not
// make one run or one sweep, an output that does not apply): the
// command line exits 2 for it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Figures are merged records' figures, as `llmbench metrics` computes
// them from a records file: the summary, and the steady state with
// whether the result carries that key at all (not for a multi-turn
// run's records).
type Figures struct {
	Summary    *metrics.Summary
	Steady     *metrics.SteadyState
	WithSteady bool
}

// Rules are what a merge takes from the command: the figures of records
// (nil = RecordsFigures, the rule `llmbench metrics` applies to a records
// file; another's errors are returned as they are), how a file for the
// user is written (atomically, mode 0600), and the mark of a sweep's late
// step, whose notes the merged sweep carries.
type Rules struct {
	Figures    func(p *record.Params, recs []record.Record) (*Figures, error)
	WriteFile  func(path string, fill func(io.Writer) error) error
	LateMarker string
}

// Outputs are what Run writes beside the table: the merged result (for
// sweeps, the merged sweep file) and the merged records (runs only); ""
// = not written.
type Outputs struct {
	Result, Records string
}

// Run is `llmbench merge`: it merges the workers' sweeps when args name
// sweep files (RunSweeps), else the workers' records of one run; prints
// what was merged to errw and the table to out, and writes the outputs.
func (r *Rules) Run(args []string, o Outputs, out, errw io.Writer) error {
	sweeps, err := SweepFiles(args)
	if err != nil {
		err = &InputError{Err: err}
	} else {
		sweeps, err = Unique(sweeps)
	}
	if err != nil || len(sweeps) > 0 {
		if err == nil && o.Records != "" {
			err = &InputError{Err: fmt.Errorf("--save-records merges one run; a sweep's merged steps are saved beside -o")}
		}
		if err != nil {
			return err
		}
		return r.RunSweeps(sweeps, o.Result, out, errw)
	}
	inputs, err := ReadWorkers(args)
	if err != nil {
		return &InputError{Err: err}
	}
	m, err := Merge(inputs)
	if err != nil {
		return &InputError{Err: err}
	}
	f, err := r.figures(&m.Params, m.Records)
	if err != nil {
		return err
	}
	WriteNotes(errw, m)
	if err := report.WriteWarnings(errw, f.Summary); err != nil {
		return err
	}
	if err := writeReport(out, m, f); err != nil {
		return err
	}
	if o.Records != "" {
		if err := r.SaveRecords(o.Records, m); err != nil {
			return err
		}
		fmt.Fprintf(out, "Merged records saved to %s\n", o.Records)
	}
	if o.Result == "" {
		return nil
	}
	obj, err := objectOf(m, f)
	if err != nil {
		return err
	}
	path, err := report.SaveResult("", o.Result, false, obj)
	if err != nil {
		return fmt.Errorf("saving merged result: %w", err)
	}
	fmt.Fprintf(out, "Merged result saved to %s\n", path)
	return nil
}

// writeReport prints what `llmbench metrics` prints for a records file:
// vLLM's table under the stream's (or SageMaker's) title, the steady
// state under it.
func writeReport(out io.Writer, m *Result, f *Figures) error {
	return report.WriteRunReport(out, f.Summary, &m.Params, report.RecordsReportOptions(&m.Params, f.Steady))
}

// figures are r.Figures, or RecordsFigures when r has none.
func (r *Rules) figures(p *record.Params, recs []record.Record) (*Figures, error) {
	if r.Figures != nil {
		return r.Figures(p, recs)
	}
	return RecordsFigures(p, recs)
}

// RecordsFigures are merged records' figures as `llmbench metrics`
// computes them for a records file (metrics.SummarizeRecords, then the
// steady state with the default options); an error is the input's
// (InputError).
func RecordsFigures(p *record.Params, recs []record.Record) (*Figures, error) {
	s, err := metrics.SummarizeRecords(p, recs)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	ss, write, err := metrics.RecordsSteadyState(p, recs, s, metrics.SteadyStateOptions{})
	if err != nil {
		return nil, &InputError{Err: err}
	}
	return &Figures{Summary: s, Steady: ss, WithSteady: write}, nil
}

// objectOf is the merged result JSON (Object) with steady_state as
// llmbench metrics computes it from records.
func objectOf(m *Result, f *Figures) (*report.Object, error) {
	return Object(m, f.Summary, report.ResultOptions{WithSteadyState: f.WithSteady, SteadyState: f.Steady})
}

// SaveRecords writes the merged records (WriteRecords) to path through
// r.WriteFile.
func (r *Rules) SaveRecords(path string, m *Result) error {
	if err := r.WriteFile(path, func(w io.Writer) error { return WriteRecords(w, m) }); err != nil {
		return fmt.Errorf("merged records: %w", err)
	}
	return nil
}
