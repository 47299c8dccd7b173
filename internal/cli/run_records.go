package cli

import (
	"io"
	"os"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sweep"
)

// recordsOut is the file a run's records stream to while it goes on
// (recfile.File, docs/records.md; where: recfile.Place).
type recordsOut struct{ recfile.File }

// openRecords decides where the records go. The result's name is fixed
// now (its date is the plan's), so the records file can carry it.
func (o *runOptions) openRecords(plan *bench.Plan) (*recordsOut, error) {
	plan.Params.Date = time.Now().Format(bench.DateLayout)
	return o.recordsAt(plan, 0, plan.Params.Date), nil
}

// recordsAt is the records file of run k of --runs (0: the only run),
// -runK in its name (sweep.RunFile); tempDate names a temporary one.
func (o *runOptions) recordsAt(plan *bench.Plan, k int, tempDate string) *recordsOut {
	f := &o.f
	run := func(name string) string {
		if k == 0 || name == "" {
			return name
		}
		return sweep.RunFile(name, k)
	}
	pl := recfile.Place{Path: run(f.saveRecordsPath), Dir: f.resultDir, Detailed: f.saveDetailed}
	if f.saveResult || f.appendResult {
		pl.Result = run(o.resultName(&plan.Params))
	}
	rec := &recordsOut{pl.File(tempDate, os.Getpid())}
	rec.Worker = o.w.headerInfo
	if rec.Temp {
		rec.Path = run(rec.Path)
	}
	return rec
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
// result is left out (recfile.File.CloseInterrupted).
func (r *recordsOut) closeInterrupted(p *bench.Plan, o *bench.Outcome) { r.CloseInterrupted(p, o) }
