package recfile

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Place says where a run's records go (docs/records.md): --save-records
// PATH; else, with --save-detailed, beside the saved result with its
// name and .records.jsonl; else, when a result is saved, a hidden
// temporary file beside it, removed once the result holding the same
// data is written; else nowhere.
type Place struct {
	// Path is --save-records PATH ("" = not given): it wins.
	Path string
	// Dir is the result's folder, Result its file name ("" = no result
	// is saved).
	Dir, Result string
	// Detailed is --save-detailed: the records are kept beside the
	// result.
	Detailed bool
}

// File is the records file of the run: date and pid name a temporary
// one, so that two runs in one folder never share it. A File with Path
// "" writes nothing.
func (p Place) File(date string, pid int) File {
	switch {
	case p.Path != "":
		return File{Path: p.Path}
	case p.Result != "" && p.Detailed:
		return File{Path: filepath.Join(p.Dir, strings.TrimSuffix(p.Result, filepath.Ext(p.Result))+".records.jsonl")}
	case p.Result != "":
		return File{Path: filepath.Join(p.Dir, fmt.Sprintf(".llmbench-records-%s-%d.jsonl", date, pid)), Temp: true}
	}
	return File{}
}
