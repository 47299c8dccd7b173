package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// SaveResult writes o to dir/name the way vLLM's --save-result does: dir
// ("" = current directory) is created if missing; the file is replaced,
// or with appendMode (vLLM's --append-result) appended to, with a newline
// first when the file is not empty, so an appended file holds one object
// per line. It returns the path written.
func SaveResult(dir, name string, appendMode bool, o *Object) (string, error) {
	path := name
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("creating result directory: %w", err)
		}
		path = filepath.Join(dir, name)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendMode {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return "", err
	}
	if appendMode {
		st, err := f.Stat()
		if err == nil && st.Size() > 0 {
			_, err = f.WriteString("\n")
		}
		if err != nil {
			f.Close()
			return "", err
		}
	}
	if err := o.WriteJSON(f); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
