package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// TestUserFilesAtomic: the files written for the user (report -o, merge
// --save-records, the sweep's files) replace their path whole with mode
// 0600 (a symlink there is replaced, its target untouched), and a write
// that fails (a full disk) leaves the path's old content and no
// temporary file. Not parallel: it sets the package's writer hook.
func TestUserFilesAtomic(t *testing.T) {
	writers := []struct {
		name  string
		write func(path string) error
	}{
		{"report -o", func(path string) error {
			if code, _, errs := runCLI(t, "report", filepath.Join("..", "..", "testdata", "conformance", "metrics", "basic_stream.input.json"), "-o", path); code != 0 {
				return fmt.Errorf("exit %d: %s", code, errs)
			}
			return nil
		}},
		{"merge --save-records", func(path string) error {
			return mergeRules.SaveRecords(path, &merge.Result{Params: record.Params{DurationS: 1},
				Records: []record.Record{{Index: 0, Success: true, TTFT: 0.1, Latency: 0.1}}})
		}},
		{"a sweep's file", func(path string) error {
			return writeUserFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err })
		}},
	}
	const old = "old complete content\n"
	for _, wr := range writers {
		t.Run(wr.name+", over a symlink", func(t *testing.T) {
			dir := t.TempDir()
			path, target := filepath.Join(dir, "out"), filepath.Join(dir, "target")
			if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			if err := wr.write(path); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != report.FileMode {
				t.Errorf("%s: %v (%v), want a regular file with mode 0600", path, st.Mode(), err)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != old {
				t.Errorf("the symlink's target holds %.80q (%v), want it untouched", b, err)
			}
			leftovers(t, dir, 2)
		})
		t.Run(wr.name+", on a full disk", func(t *testing.T) {
			wrapFileWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w} }
			t.Cleanup(func() { wrapFileWriter = nil })
			dir := t.TempDir()
			path := filepath.Join(dir, "out")
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := wr.write(path); err == nil {
				t.Error("the write succeeded on a full disk")
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != old {
				t.Errorf("%s holds %.80q (%v), want its old content", path, b, err)
			}
			leftovers(t, dir, 1)
		})
	}
}
