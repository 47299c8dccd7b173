package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/internal/atomicfile"
)

// FileMode is the permission of saved result files: owner only, since a
// result carries server-provided text (error messages, generated text)
// that may echo what the request carried.
const FileMode fs.FileMode = 0o600

// SaveResult writes o to dir/name the way vLLM's --save-result does: dir
// ("" = current directory) is created if missing; the file is replaced,
// or with appendMode (vLLM's --append-result) appended to, with a newline
// first when the file is not empty, so an appended file holds one object
// per line. It returns the path written.
//
// The write is atomic (package atomicfile): on any error, a full disk
// included, the file under its final name is left as it was and the error
// is returned. An append rewrites the old content and the new object
// together. The file gets mode FileMode.
func SaveResult(dir, name string, appendMode bool, o *Object) (string, error) {
	path := name
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("creating result directory: %w", err)
		}
		path = filepath.Join(dir, name)
	}
	var old []byte
	if appendMode {
		var err error
		old, err = os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	err := atomicfile.Write(path, FileMode, func(w io.Writer) error {
		if len(old) > 0 {
			if _, err := w.Write(old); err != nil {
				return err
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return o.WriteJSON(w)
	})
	if err != nil {
		return "", err
	}
	return path, nil
}
