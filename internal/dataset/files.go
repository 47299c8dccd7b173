package dataset

import (
	"context"
	"fmt"
	"io"
	"os"
)

// MaxEntryBytes bounds one dataset entry: a JSONL line (custom, hf), or
// one turn of a ShareGPT conversation. 32 MiB is a prompt of about 8
// million tokens, far beyond any model's context; a longer entry is refused
// (JSONL) or skipped with a warning (ShareGPT turns) before it is
// tokenized.
const MaxEntryBytes = 32 << 20

// MaxDecompressedBytes bounds what one gzipped dataset file may expand to.
const MaxDecompressedBytes = 16 << 30

// openDataFile opens path for reading as a dataset (what names the
// dataset kind in messages). Only regular files are accepted: a device
// (/dev/zero), a FIFO or a socket never ends, or ends when another process
// says so. Reads fail with ctx's error once ctx is done, so a signal stops
// loading at the next read.
func openDataFile(ctx context.Context, path, what string) (io.ReadCloser, error) {
	// Checked before opening too: opening a FIFO blocks until a writer
	// comes.
	st, err := os.Stat(path)
	if err == nil {
		err = checkRegular(path, st)
	}
	if err != nil {
		return nil, fmt.Errorf("%s dataset: %w", what, err)
	}
	f, err := os.Open(path)
	if err == nil {
		if st, err = f.Stat(); err == nil {
			err = checkRegular(path, st)
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s dataset: %w", what, err)
	}
	return &ctxFile{ctx: ctx, File: f}, nil
}

// checkRegular refuses what is not a regular file.
func checkRegular(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): --dataset-path must name a file on disk", path, kindOf(st.Mode()))
	}
	return nil
}

// kindOf names a non-regular file mode.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// ctxFile is a file whose reads stop once its context is done.
type ctxFile struct {
	ctx context.Context
	*os.File
}

func (f *ctxFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	// Bounded reads: a cancellation is seen within one read of 1 MiB.
	return f.File.Read(p[:min(len(p), 1<<20)])
}

// WriteTo hides os.File's, which would bypass Read (and the context).
func (f *ctxFile) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, struct{ io.Reader }{f})
}

// readDataFile reads a whole dataset file (see openDataFile).
func readDataFile(ctx context.Context, path, what string) ([]byte, error) {
	f, err := openDataFile(ctx, path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s dataset: %s: %w", what, path, err)
	}
	return data, nil
}
