package recfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// TestRecordsFileReplacesWhatIsThere: an existing records path is
// replaced with mode 0600 (not written into with its old mode), and a
// symlink at the path is replaced while its target stays as it was.
func TestRecordsFileReplacesWhatIsThere(t *testing.T) {
	t.Parallel()
	const old = "old content\n"
	tests := []struct {
		name  string
		setup func(t *testing.T, path string) (target string)
	}{
		{"a file readable by all", func(t *testing.T, path string) string {
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{"a symlink", func(t *testing.T, path string) string {
			target := filepath.Join(filepath.Dir(path), "target.txt")
			if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			return target
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "r.records.jsonl")
			target := tt.setup(t, path)
			rec := &File{Path: path}
			if err := writeRecords(t, rec, 2); err != nil {
				t.Fatal(err)
			}
			st, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Mode().IsRegular() || st.Mode().Perm() != record.FileMode {
				t.Errorf("%s is %v, want a regular file with mode %v", path, st.Mode(), os.FileMode(record.FileMode))
			}
			if _, recs, _, err := record.ReadFile(path); err != nil || len(recs) != 2 {
				t.Errorf("read back %d records, %v", len(recs), err)
			}
			if target != "" {
				if b, err := os.ReadFile(target); err != nil || string(b) != old {
					t.Errorf("the symlink's target now holds %q (%v), want it untouched", b, err)
				}
			}
			leftovers(t, filepath.Dir(path), 1+min(len(target), 1))
		})
	}
}

// writeRecords runs a records file through a step's sink calls (begin,
// n records, end) and close, as a run does.
func writeRecords(t *testing.T, rec *File, n int) error {
	t.Helper()
	var s bench.Sink = rec
	if err := s.Begin(time.Now(), record.Header{Params: record.Params{NumPrompts: &n}, Start: &record.Anchor{UnixNano: 1}}); err != nil {
		return err
	}
	for i := range n {
		s.Record(&record.Record{Index: i, Success: true, ITL: []float64{0.1}, Latency: 0.2, TTFT: 0.1})
	}
	s.End(&bench.Outcome{})
	rec.Close(&record.Params{DurationS: 1, NumPrompts: &n})
	return rec.Err()
}

// leftovers fails when dir holds other than n entries (a temporary file
// left behind).
func leftovers(t *testing.T, dir string, n int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != n {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want %d entries", dir, names, n)
	}
}

// fullDisk accepts its first ok writes and fails every later one with
// ENOSPC, as a disk that fills up during the run.
type fullDisk struct {
	w  io.Writer
	ok int
}

func (d *fullDisk) Write(b []byte) (int, error) {
	if d.ok <= 0 {
		return 0, syscall.ENOSPC
	}
	d.ok--
	return d.w.Write(b)
}

// TestFileEnds: every way a step ends leaves the file closed, and a
// second Close changes nothing; a write failure removes the file, fails
// the run unless the file was a temporary copy, and says so on Errw.
func TestFileEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		temp      bool
		ok        int // writes the disk takes; -1 = all
		end       func(f *File)
		closing   bool // a closing line is there
		removed   bool
		failed    bool
		errPrefix string
	}{
		{"closed with params", false, -1, func(f *File) { f.End(&bench.Outcome{}); f.Close(&record.Params{DurationS: 1}) }, true, false, false, ""},
		{"stopped early", false, -1, func(f *File) { f.End(nil) }, false, false, false, ""},
		{"closed without params", false, -1, func(f *File) { f.End(&bench.Outcome{}); f.Close(nil) }, false, false, false, ""},
		{"a full disk", false, 1, func(f *File) { f.End(&bench.Outcome{}); f.Close(&record.Params{DurationS: 1}) }, false, true, true, "Error: "},
		{"a full disk, temporary copy", true, 1, func(f *File) { f.End(&bench.Outcome{}); f.Close(&record.Params{DurationS: 1}) }, false, true, false, "Warning: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var errw strings.Builder
			path := filepath.Join(t.TempDir(), "r.records.jsonl")
			f := &File{Path: path, Temp: tt.temp, Errw: &errw}
			if tt.ok >= 0 {
				f.Wrap = func(w io.Writer) io.Writer { return &fullDisk{w: w, ok: tt.ok} }
			}
			if err := f.Begin(time.Now(), record.Header{Start: &record.Anchor{UnixNano: 1}}); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				f.Record(&record.Record{Index: i, Success: true, Latency: 0.2, TTFT: 0.1})
			}
			tt.end(f)
			f.Close(&record.Params{DurationS: 2}) // a second end: nothing
			if f.Open() {
				t.Error("the file is still open")
			}
			if (f.Failed() != nil) != tt.failed {
				t.Errorf("Failed() = %v, want failed %v", f.Failed(), tt.failed)
			}
			if !strings.HasPrefix(errw.String(), tt.errPrefix) || (tt.errPrefix == "") != (errw.Len() == 0) {
				t.Errorf("errw %q, want prefix %q", errw.String(), tt.errPrefix)
			}
			b, err := os.ReadFile(path)
			if tt.removed {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the cut file is still there (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			last := lines[len(lines)-1]
			if got := strings.Contains(last, `"llmbench_records_end"`); got != tt.closing {
				t.Errorf("closing line %v, want %v: %s", got, tt.closing, last)
			}
			if tt.closing && (len(lines) != 5 || !strings.Contains(last, `"duration_s":1`)) {
				t.Errorf("%d lines, last %s; want 5 ending with the first Close's params", len(lines), last)
			}
		})
	}
}

// TestFileCloseInterrupted: a step stopped by Ctrl-C ends its file with
// the step's summarized params, marked interrupted.
func TestFileCloseInterrupted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.records.jsonl")
	f := &File{Path: path}
	n := 3
	if err := writeSome(f, n); err != nil {
		t.Fatal(err)
	}
	recs := make([]record.Record, n)
	for i := range recs {
		recs[i] = record.Record{Index: i, Success: true, ITL: []float64{0.1}, Latency: 0.2, TTFT: 0.1}
	}
	o := &bench.Outcome{Records: recs, Interrupted: true, Duration: 2 * time.Second}
	f.End(o)
	f.CloseInterrupted(&bench.Plan{}, o)
	if f.Open() || f.Err() != nil {
		t.Fatalf("open %v, error %v", f.Open(), f.Err())
	}
	p, got, _, err := record.ReadFile(path)
	if err != nil || len(got) != n || !p.Interrupted || p.DurationS != 2 {
		t.Errorf("read back %d records, params %+v, %v; want %d, interrupted, 2 s", len(got), p, err, n)
	}
}

// writeSome begins f and appends n records, as a step does before its end.
func writeSome(f *File, n int) error {
	if err := f.Begin(time.Now(), record.Header{Start: &record.Anchor{UnixNano: 1}}); err != nil {
		return err
	}
	for i := range n {
		f.Record(&record.Record{Index: i, Success: true, ITL: []float64{0.1}, Latency: 0.2, TTFT: 0.1})
	}
	return nil
}
