// Package atomicfile writes a file so that its final name holds either the
// complete new content or what it held before, never a truncated mix: the
// content goes to a temporary file in the same folder, is flushed to disk
// (fsync), and is renamed over the final name. On a full disk or any other
// write error the temporary file is removed and the error returned.
//
// It does not lock: two writers of one path race, and the last rename wins.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// file is what Write needs of a temporary file (an *os.File in use; tests
// substitute one that fails).
type file interface {
	io.Writer
	Name() string
	Chmod(os.FileMode) error
	Sync() error
	Close() error
}

// createFunc creates a temporary file in dir (os.CreateTemp's contract).
type createFunc func(dir, pattern string) (file, error)

func osCreateTemp(dir, pattern string) (file, error) { return os.CreateTemp(dir, pattern) }

// Write calls fill with a writer for the new content of path and, if fill
// and every write succeed, replaces path with it, with permissions perm
// (also when path existed with others). The folder must exist.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) error {
	return write(path, perm, fill, osCreateTemp)
}

func write(path string, perm os.FileMode, fill func(io.Writer) error, create createFunc) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := create(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	werr := f.Chmod(perm)
	if werr == nil {
		werr = fill(f)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir flushes the folder entry of the rename where the system allows
// it; a failure there loses nothing already written, so it is ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync() // some file systems refuse fsync on folders
	_ = d.Close()
}
