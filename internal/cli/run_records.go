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
type recordsOut struct {
	path string // "" = no records file
	temp bool
	fh   *os.File
	s    *record.Stream
	err  error // the first error writing the file
	// worker is the distributed run's header block; nil for one process.
	worker func() *record.WorkerInfo
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

// open creates the file and writes the header; bench.Execute calls it
// just before dispatch. Mode 0600: records may hold server text.
func (r *recordsOut) open(h record.Header) (*record.Stream, error) {
	if r.path == "" {
		return nil, nil
	}
	if dir := filepath.Dir(r.path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("records file: %w", err)
		}
	}
	if r.worker != nil {
		h.Worker = r.worker()
	}
	fh, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("records file: %w", err)
	}
	s, err := record.NewStream(fh, h)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("records file %s: %w", r.path, err)
	}
	r.fh, r.s = fh, s
	return s, nil
}

// close writes the closing line with the final params and closes the
// file; a failure is reported on errw (the result may still be saved).
func (r *recordsOut) close(o *bench.Outcome, p *record.Params, errw io.Writer) {
	if r.s == nil {
		return
	}
	r.err = o.StreamErr
	if err := r.s.Close(p, o.NotSent); r.err == nil {
		r.err = err
	}
	if err := r.fh.Close(); r.err == nil {
		r.err = err
	}
	if r.err != nil {
		fmt.Fprintf(errw, "Warning: writing the records file %s: %v\n", r.path, r.err)
	}
}

// removeTemp deletes a temporary records file once the result holding
// the same data is saved.
func (r *recordsOut) removeTemp() {
	if r.temp && r.path != "" {
		_ = os.Remove(r.path)
	}
}
