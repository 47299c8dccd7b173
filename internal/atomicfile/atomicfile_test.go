package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errDiskFull = errors.New("no space left on device (test)")

// fullDisk is a temporary file on a disk that fills up after limit bytes.
// Only Write writes (no promoted WriteString or ReadFrom).
type fullDisk struct {
	f     *os.File
	limit int
}

func (f *fullDisk) Name() string              { return f.f.Name() }
func (f *fullDisk) Chmod(m os.FileMode) error { return f.f.Chmod(m) }
func (f *fullDisk) Sync() error               { return f.f.Sync() }
func (f *fullDisk) Close() error              { return f.f.Close() }

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		n, _ := f.f.Write(p[:f.limit])
		f.limit = 0
		return n, errDiskFull
	}
	f.limit -= len(p)
	return f.f.Write(p)
}

func TestWriteFullDiskKeepsOldContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := os.WriteFile(path, []byte("old complete content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	create := func(dir, pattern string) (file, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return &fullDisk{f: f, limit: 10}, nil
	}
	err := write(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Repeat("new content ", 100))
		return err
	}, create)
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("error = %v, want the disk-full error", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old complete content\n" {
		t.Errorf("final name holds %q after a failed write; want the old content untouched", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the result (temporary file removed)", len(entries))
	}
}

func TestWriteFullDiskNewFileLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	create := func(dir, pattern string) (file, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return &fullDisk{f: f, limit: 3}, nil
	}
	err := write(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, "0123456789")
		return err
	}, create)
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a truncated file was left under the final name (stat: %v)", err)
	}
}

func TestWriteReplacesWithMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v, want \"new\" 0600", got, st.Mode().Perm())
	}
}

func TestWriteFillErrorKeepsOld(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("encoding failed")
	err := Write(path, 0o600, func(w io.Writer) error { _, _ = io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content %q, want old", got)
	}
}
