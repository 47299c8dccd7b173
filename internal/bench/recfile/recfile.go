// Package recfile is the records file a step streams to while it runs
// (docs/records.md): a bench.Sink that writes the header just before
// dispatch, appends each record as it finishes and ends with the closing
// line, so that a crash, an OOM kill or kill -9 loses at most the last
// second of records. It does not decide where the file goes (the CLI
// does) nor what the run's figures are (bench.Summarize).
package recfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// File is one step's records file. The zero value with Path "" writes
// nothing. Begin opens the file, each Record appends, and End(nil) — a
// step stopped without an outcome — closes it without its closing line.
// After an outcome, Close writes the closing line: it carries the final
// params and the server's figures (SetEndExtra), which are known only
// once the step is summarized and the server read.
type File struct {
	Path string // "" = no records file
	// Temp marks a safety copy kept only until the result holding the
	// same data is saved: losing it is a warning, not a failure.
	Temp bool
	// Worker gives the distributed run's header block; nil for one
	// process.
	Worker func() *record.WorkerInfo
	// Errw is where a write failure is reported (nil: nowhere).
	Errw io.Writer
	// Wrap, when set (tests: a disk that fills up), stands between the
	// stream and the file.
	Wrap func(io.Writer) io.Writer

	fh      *os.File
	s       *record.Stream
	err     error // the first error writing the file
	notSent int   // the outcome's count, for the closing line
}

var _ bench.Sink = (*File)(nil)

// Begin creates the file and writes the header (bench.Sink): h with the
// worker's block, just before dispatch. The header goes to a temporary
// file in the same folder that is then renamed over the path, so an
// existing file is replaced whole, mode included (record.FileMode, 0600:
// records hold server text), and a symlink at the path is replaced,
// never written through. The records then stream to the final name,
// where a killed run leaves them (docs/records.md).
func (f *File) Begin(_ time.Time, h record.Header) error {
	if f.Path == "" {
		return nil
	}
	dir := filepath.Dir(f.Path)
	if dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("records file: %w", err)
		}
	}
	if f.Worker != nil {
		h.Worker = f.Worker()
	}
	fh, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("records file: %w", err)
	}
	var w io.Writer = fh
	if f.Wrap != nil {
		w = f.Wrap(fh)
	}
	s, err := record.NewStream(w, h)
	if err == nil {
		err = fh.Chmod(record.FileMode)
		if err == nil {
			err = os.Rename(fh.Name(), f.Path)
		}
		if err != nil {
			_ = s.Close(nil, 0)
		}
	}
	if err != nil {
		fh.Close()
		_ = os.Remove(fh.Name())
		return fmt.Errorf("records file %s: %w", f.Path, err)
	}
	f.fh, f.s = fh, s
	return nil
}

// Record appends one record (bench.Sink). After the first write error
// the rest are dropped: the run goes on, and the file is removed at the
// end.
func (f *File) Record(r *record.Record) {
	if f.s != nil && f.err == nil {
		f.err = f.s.Add(r)
	}
}

// End sees the step's end (bench.Sink). Without an outcome (stopped
// early: the first requests all failed as a misconfiguration fails) it
// flushes the records and closes the file without its closing line:
// those failures are what explains the stop, and the file reads back as
// a run that did not finish. With one, it keeps the count of requests
// not sent for Close.
func (f *File) End(o *bench.Outcome) {
	if o != nil {
		f.notSent = o.NotSent
		return
	}
	f.Close(nil)
}

// Open reports whether the file is open: begun and not yet closed.
func (f *File) Open() bool { return f.s != nil }

// SetEndExtra adds v to the closing line's extras under key (see
// record.Stream.SetEndExtra); a no-op when the file is not open.
func (f *File) SetEndExtra(key string, v any) error {
	if f.s == nil {
		return nil
	}
	return f.s.SetEndExtra(key, v)
}

// Close writes the closing line with the final params p (nil: none, the
// file reads back as unfinished) and closes the file. It may be called
// again, and when the file is not open: both do nothing, so a caller can
// defer Close(nil) as the end of every path. A failure removes the file,
// is reported on Errw and by Failed.
func (f *File) Close(p *record.Params) {
	if f.s == nil {
		return
	}
	if err := f.s.Close(p, f.notSent); f.err == nil {
		f.err = err
	}
	if f.err == nil {
		f.err = f.fh.Sync() // a full disk may say so only now
	}
	if err := f.fh.Close(); f.err == nil {
		f.err = err
	}
	f.s = nil
	if f.err != nil {
		// Records past the failure are missing: a cut file under the
		// final name would read as a complete run.
		_ = os.Remove(f.Path)
		level := "Error"
		if f.Temp {
			level = "Warning" // only a safety copy of what the result holds
		}
		if f.Errw != nil {
			fmt.Fprintf(f.Errw, "%s: writing the records file %s: %v; the file is removed\n", level, f.Path, f.err)
		}
	}
}

// CloseInterrupted ends the records of a step stopped by Ctrl-C whose
// result is left out: the closing line carries the step's summarized
// params (interrupted), as a run's does (docs/records.md, "Closing
// line"); when they cannot be summarized the file is closed unfinished.
func (f *File) CloseInterrupted(p *bench.Plan, o *bench.Outcome) {
	if sum, err := bench.Summarize(p, o); err == nil {
		f.Close(&sum.Params)
	}
	f.Close(nil)
}

// Err is the first error writing the file (nil when none).
func (f *File) Err() error { return f.err }

// Failed is the error that fails the run when the records file asked for
// could not be written (nil when it was, or when there is none, or when
// it was only the temporary copy kept until the result is saved).
func (f *File) Failed() error {
	if f.err == nil || f.Temp {
		return nil
	}
	return fmt.Errorf("the records file %s could not be written (%v): the run's figures above stand, its records are lost", f.Path, f.err)
}

// RemoveTemp deletes a temporary records file once the result holding
// the same data is saved.
func (f *File) RemoveTemp() {
	if f.Temp && f.Path != "" {
		_ = os.Remove(f.Path)
	}
}
