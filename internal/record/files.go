package record

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// DateLayout is a run's date stamp, Params.Date (vLLM's %Y%m%d-%H%M%S).
const DateLayout = "20060102-150405"

// BesideResult is the records file a run saves beside its result JSON
// with --save-result --save-detailed (docs/records.md, "Where records
// files come from"): the result's name with its extension replaced by
// .records.jsonl (NAME.json -> NAME.records.jsonl). It is the one rule:
// the run names the file so, and compare, report and merge look for it
// there. "" for no path (a result held in memory has none beside it).
func BesideResult(resultPath string) string {
	if resultPath == "" {
		return ""
	}
	return strings.TrimSuffix(resultPath, filepath.Ext(resultPath)) + ".records.jsonl"
}

// ReadPath reads a records file (see ReadFile), or stdin for "-" (llmbench
// metrics -), whose errors then start "stdin: ".
func ReadPath(path string, stdin io.Reader) (Params, []Record, Format, error) {
	if path != "-" {
		return ReadFile(path)
	}
	p, recs, f, err := Read(stdin)
	if err != nil {
		return p, nil, 0, fmt.Errorf("stdin: %w", err)
	}
	return p, recs, f, nil
}
