package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/record"
)

// recordsOut is the file a run's records stream to while it goes on
// (recfile.File, docs/records.md): --save-records PATH; with
// --save-detailed, the result's name with .records.jsonl; else, when a
// result is to be saved, a temporary file beside it, removed once the
// result is written.
type recordsOut struct{ recfile.File }

// openRecords decides where the records go. The result's name is fixed
// now (its date is the plan's), so the records file can carry it.
func (o *runOptions) openRecords(plan *bench.Plan) (*recordsOut, error) {
	f := &o.f
	plan.Params.Date = time.Now().Format(bench.DateLayout)
	saving := f.saveResult || f.appendResult
	rec := &recordsOut{recfile.File{Worker: o.w.headerInfo}}
	switch {
	case f.saveRecordsPath != "":
		rec.Path = f.saveRecordsPath
	case saving && f.saveDetailed:
		name := o.resultName(&plan.Params)
		rec.Path = filepath.Join(f.resultDir, strings.TrimSuffix(name, filepath.Ext(name))+".records.jsonl")
	case saving:
		rec.Path = filepath.Join(f.resultDir, fmt.Sprintf(".llmbench-records-%s-%d.jsonl", plan.Params.Date, os.Getpid()))
		rec.Temp = true
	}
	return rec, nil
}

// sink is r as the step's bench.Sink, reporting write failures on errw.
func (r *recordsOut) sink(errw io.Writer) bench.Sink {
	r.Errw, r.Wrap = errw, wrapFileWriter
	return &r.File
}

// close writes the closing line with the final params and closes the
// file (recfile.File.Close).
func (r *recordsOut) close(p *record.Params) { r.Close(p) }

// closeInterrupted ends the records of a step stopped by Ctrl-C whose
// result is left out: the closing line carries the step's summarized
// params (interrupted), as a run's does (docs/records.md, "Closing
// line"); without them the file is closed unfinished.
func (r *recordsOut) closeInterrupted(p *bench.Plan, o *bench.Outcome) {
	if sum, err := bench.Summarize(p, o); err == nil {
		r.Close(&sum.Params)
	}
	r.Close(nil)
}
