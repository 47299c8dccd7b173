package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// RunFiles are what a run saves as its flags decided: the result
// (vLLM's --save-result or --append-result) and the records file it
// streamed (docs/records.md).
type RunFiles struct {
	// Dir and Name are where the result goes; Save or Append ask for it.
	Dir, Name    string
	Save, Append bool
	// Options and Extra shape the result (Result, then SetExtras).
	Options ResultOptions
	Extra   map[string]any
	// Records is the records file the run streamed.
	Records RecordsFile
}

// RecordsFile is a run's records file: its Path ("" = none); Named when
// the user named it (--save-records); Temp when it is kept only until the
// result is written; Whole when every record reached it.
type RecordsFile struct {
	Path               string
	Named, Temp, Whole bool
}

// SaveRun says on out where the records went, then saves the result when
// asked and says where. saved reports a result written, after which a
// Temp records file can go; when the result cannot be written, the error
// names the records file that keeps the run.
func SaveRun(out io.Writer, s *metrics.Summary, p *record.Params, recs []record.Record, f RunFiles) (saved bool, err error) {
	r := f.Records
	if r.Path != "" && !r.Temp && r.Whole {
		if r.Named {
			fmt.Fprintf(out, "Records saved to %s\n", r.Path)
		} else {
			fmt.Fprintf(out, "Per-request records saved to %s (recompute with: llmbench metrics %s)\n", r.Path, r.Path)
		}
	}
	if !f.Save && !f.Append {
		return false, nil
	}
	obj, err := Result(s, p, recs, f.Options)
	if err != nil {
		return false, err
	}
	SetExtras(obj, f.Extra)
	path, err := SaveResult(f.Dir, f.Name, f.Append, obj)
	if err != nil {
		if r.Temp && r.Whole {
			return false, fmt.Errorf("saving result: %w (the per-request records are kept in %s; recompute with: llmbench metrics %s)", err, r.Path, r.Path)
		}
		return false, fmt.Errorf("saving result: %w", err)
	}
	fmt.Fprintf(out, "Result saved to %s\n", path)
	return true, nil
}

// MakeDirs creates the folder of each file ("" skipped) before a run, so
// a folder that cannot be made fails at once rather than after a long run
// whose files then cannot be written.
func MakeDirs(files ...string) error {
	for _, file := range files {
		if file == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
	}
	return nil
}
