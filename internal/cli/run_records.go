package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// recordsOut is the file a run's records stream to while it goes on, so a
// crash, an OOM kill or kill -9 loses at most the last second of them
// (docs/records.md): --save-records PATH; with --save-detailed, the
// result's name with .records.jsonl; else, when a result is to be saved,
// a temporary file beside it, removed once the result is written.
//
// It is a bench.Sink (sink): the step's Begin opens the file, each Record
// appends, and End(nil) — a step stopped without an outcome — closes it
// without its closing line. After an outcome, close writes the closing
// line: it carries the final params and the server's figures, which are
// known only once the step is summarized and the server read.
type recordsOut struct {
	path string // "" = no records file
	temp bool
	fh   *os.File
	s    *record.Stream
	err  error // the first error writing the file
	// worker is the distributed run's header block; nil for one process.
	worker func() *record.WorkerInfo
	// errw is where a write failure is reported (sink sets it); notSent
	// is the outcome's count for the closing line (End).
	errw    io.Writer
	notSent int
}

// openRecords decides where the records go. The result's name is fixed
// now (its date is the plan's), so the records file can carry it.
func (o *runOptions) openRecords(plan *bench.Plan) (*recordsOut, error) {
	f := &o.f
	plan.Params.Date = time.Now().Format(bench.DateLayout)
	saving := f.saveResult || f.appendResult
	rec := &recordsOut{worker: o.w.headerInfo}
	switch {
	case f.saveRecordsPath != "":
		rec.path = f.saveRecordsPath
	case saving && f.saveDetailed:
		name := o.resultName(&plan.Params)
		rec.path = filepath.Join(f.resultDir, strings.TrimSuffix(name, filepath.Ext(name))+".records.jsonl")
	case saving:
		rec.path = filepath.Join(f.resultDir, fmt.Sprintf(".llmbench-records-%s-%d.jsonl", plan.Params.Date, os.Getpid()))
		rec.temp = true
	}
	return rec, nil
}

// sink is r as the step's bench.Sink, reporting write failures on errw.
func (r *recordsOut) sink(errw io.Writer) bench.Sink {
	r.errw = errw
	return r
}

// Begin creates the file and writes the header (bench.Sink): h with the
// worker's block, just before dispatch. The header goes to a temporary file in the same
// folder that is then renamed over the path, so an existing file is
// replaced whole, mode included (record.FileMode, 0600: records hold
// server text), and a symlink at the path is replaced, never written
// through. The records then stream to the final name, where a killed run
// leaves them (docs/records.md).
func (r *recordsOut) Begin(_ time.Time, h record.Header) error {
	if r.path == "" {
		return nil
	}
	dir := filepath.Dir(r.path)
	if dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("records file: %w", err)
		}
	}
	if r.worker != nil {
		h.Worker = r.worker()
	}
	fh, err := os.CreateTemp(dir, "."+filepath.Base(r.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("records file: %w", err)
	}
	var w io.Writer = fh
	if wrapFileWriter != nil {
		w = wrapFileWriter(fh)
	}
	s, err := record.NewStream(w, h)
	if err == nil {
		err = fh.Chmod(record.FileMode)
		if err == nil {
			err = os.Rename(fh.Name(), r.path)
		}
		if err != nil {
			_ = s.Close(nil, 0)
		}
	}
	if err != nil {
		fh.Close()
		_ = os.Remove(fh.Name())
		return fmt.Errorf("records file %s: %w", r.path, err)
	}
	r.fh, r.s = fh, s
	return nil
}

// Record appends one record (bench.Sink). After the first write error
// the rest are dropped: the run goes on, and the file is removed at the
// end.
func (r *recordsOut) Record(rec *record.Record) {
	if r.s != nil && r.err == nil {
		r.err = r.s.Add(rec)
	}
}

// End sees the step's end (bench.Sink). Without an outcome (stopped
// early: the first requests all failed as a misconfiguration fails) it
// flushes the records and closes the file without its closing line:
// those failures are what explains the stop, and the file reads back as
// a run that did not finish. With one, it keeps the count of requests
// not sent for close.
func (r *recordsOut) End(o *bench.Outcome) {
	if o != nil {
		r.notSent = o.NotSent
		return
	}
	if r.s != nil {
		r.finish(nil)
	}
}

// close writes the closing line with the final params and closes the
// file; a failure is reported on errw and by failed.
func (r *recordsOut) close(p *record.Params) {
	if r.s == nil {
		return
	}
	r.finish(p)
}

func (r *recordsOut) finish(p *record.Params) {
	if err := r.s.Close(p, r.notSent); r.err == nil {
		r.err = err
	}
	if r.err == nil {
		r.err = r.fh.Sync() // a full disk may say so only now
	}
	if err := r.fh.Close(); r.err == nil {
		r.err = err
	}
	r.s = nil
	if r.err != nil {
		// Records past the failure are missing: a cut file under the
		// final name would read as a complete run.
		_ = os.Remove(r.path)
		level := "Error"
		if r.temp {
			level = "Warning" // only a safety copy of what the result holds
		}
		if r.errw != nil {
			fmt.Fprintf(r.errw, "%s: writing the records file %s: %v; the file is removed\n", level, r.path, r.err)
		}
	}
}

// failed is the error that fails the run when the records file asked for
// could not be written (nil when it was, or when there is none, or when
// it was only the temporary copy kept until the result is saved).
func (r *recordsOut) failed() error {
	if r.err == nil || r.temp {
		return nil
	}
	return fmt.Errorf("the records file %s could not be written (%v): the run's figures above stand, its records are lost", r.path, r.err)
}

// removeTemp deletes a temporary records file once the result holding
// the same data is saved.
func (r *recordsOut) removeTemp() {
	if r.temp && r.path != "" {
		_ = os.Remove(r.path)
	}
}
