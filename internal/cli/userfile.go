package cli

import (
	"io"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/report"
)

// wrapFileWriter, when set (tests only), stands between what writes a
// user's file (writeUserFile, the records stream) and the file: a writer
// that fails plays a full disk.
var wrapFileWriter func(io.Writer) io.Writer

// writeUserFile writes a file the user asked for (a report, a merged
// result's records, a sweep's JSON, CSV and HTML) through package
// atomicfile: mode 0600 as every saved file (report.FileMode: they hold
// server text), a temporary file in the same folder, fsync, rename; so a
// full disk or a failed render leaves what the path held before, never a
// cut file, and a symlink at the path is replaced, not written through.
func writeUserFile(path string, fill func(io.Writer) error) error {
	return atomicfile.Write(path, report.FileMode, func(w io.Writer) error {
		if wrapFileWriter != nil {
			w = wrapFileWriter(w)
		}
		return fill(w)
	})
}
