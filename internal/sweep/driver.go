package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
)

// Driver runs the steps of one sweep and keeps their rows.
type Driver struct {
	cfg   Config
	steps Stepper
	base  *bench.Plan
	// errw takes the progress lines.
	errw io.Writer
	dir  string // the step results' folder
	rows []capacity.Row
	// windows are the rows' wall-clock windows, for CloudWatch.
	windows []window
	an      *capacity.Sweep
	n       int // steps run
	total   int // steps planned (grows with refinement)
	// stopped says why the sweep ended early ("" = it did not).
	stopped string
	// interrupted names the step Ctrl-C stopped and where its partial
	// result went ("" = none; keepInterrupted).
	interrupted string
	// dead says how the server stopped answering ("" = it did not): the
	// sweep then ends with exit 1 and a verdict that says so.
	dead string
	// late are the steps that started late on the clock schedule
	// (lateNote), kept in the sweep file's notes.
	late []string
	// longer is how many times --refine lengthened the step at a load
	// (lengthen): its requests or duration are multiplied by 2^longer.
	longer map[float64]int
	// pending are the saved results of the current load's runs so far,
	// rewritten with llmbench.runs once the K-th has run (saveRuns).
	pending []savedRun
	// more is whether the last step's load wants another run (--runs).
	more bool
}

// New is the driver of a sweep whose steps derive from base; progress
// lines go to errw.
func New(cfg Config, base *bench.Plan, steps Stepper, errw io.Writer) *Driver {
	return &Driver{cfg: cfg, base: base, steps: steps, errw: errw, total: len(cfg.Loads) * cfg.Repeat.Planned()}
}

// Path is the sweep file's path; its steps go to a folder of the same
// name. A worker's is named after the run and its index, so workers
// writing to one folder never collide and merge finds them.
func (d *Driver) Path() string {
	if w := d.cfg.Worker; w != nil {
		return filepath.Join(d.cfg.ResultDir, fmt.Sprintf("sweep-%s-worker-%d.json", w.RunID, w.Index))
	}
	return filepath.Join(d.cfg.ResultDir, capacity.FileName(d.cfg.Label, d.cfg.Kind, d.cfg.Date))
}

// Dir is the folder of the step results.
func (d *Driver) Dir() string { return strings.TrimSuffix(d.Path(), ".json") }

// MakeDir creates the step results' folder.
func (d *Driver) MakeDir() error {
	d.dir = d.Dir()
	return os.MkdirAll(d.dir, 0o755)
}

// Run prints the plan, runs the ladder and the refinement, and analyses
// what was measured (MakeDir first).
func (d *Driver) Run(ctx context.Context) (*Result, error) {
	d.printSchedule()
	d.printPlan(d.errw)
	d.ladder(ctx)
	d.refine(ctx)
	return d.finish(ctx)
}

// ladder runs every load of the ladder, --runs times each.
func (d *Driver) ladder(ctx context.Context) {
	for _, l := range d.cfg.Loads {
		if !d.runLoad(ctx, l) {
			return
		}
		if d.cfg.StopWhenSaturated && d.an != nil && d.an.Stop() {
			d.stopped = "the knee is confirmed and the SLA failed (--stop-when-saturated)"
			return
		}
	}
}

// refine spends --refine steps first on lengthening the unresolved
// steps (an interval that straddles a limit narrows with more requests),
// then on bisecting between the last passing and the first failing load.
func (d *Driver) refine(ctx context.Context) {
	for i := 0; i < d.cfg.Refine && d.stopped == "" && d.an != nil; i++ {
		if l, ok := d.unresolved(); ok {
			d.lengthen(ctx, l)
			continue
		}
		pass, fail, ok := d.an.RefineBounds()
		if !ok {
			return
		}
		probe, ok := capacity.NextProbe(pass, fail, d.cfg.Kind)
		if !ok {
			return
		}
		if d.tested(probe) {
			// It was measured and did not move the bounds: the step was
			// client-limited, so no verdict can come from measuring it again.
			d.stopped = fmt.Sprintf("refinement stopped at %s %s, whose step gave no server verdict (client-limited)", d.cfg.Kind, strconv.FormatFloat(probe, 'f', -1, 64))
			return
		}
		d.total += d.cfg.Repeat.Planned()
		if !d.runLoad(ctx, probe) {
			return
		}
	}
}

// runLoad runs the runs of load l: --runs K of them, or under --runs
// auto until the deciding figures converge (at most --max-runs); false
// when the sweep must stop.
func (d *Driver) runLoad(ctx context.Context, l float64) bool {
	for run := 1; ; run++ {
		ok, more := d.step(ctx, l, run)
		if !ok {
			return false
		}
		if !more {
			d.total -= d.cfg.Repeat.Planned() - run // auto stopped early
			return true
		}
	}
}

// unresolved is the lowest counted load whose SLA verdict is
// unresolved and that refinement has not lengthened yet.
func (d *Driver) unresolved() (float64, bool) {
	for i := range d.an.Steps {
		r := &d.an.Steps[i]
		if r.SLAVerdict == capacity.VerdictUnresolved && !r.HarnessLimited && d.longer[r.Load] == 0 {
			return r.Load, true
		}
	}
	return 0, false
}

// lengthen runs the step at load l again with twice the requests (or
// the duration) and puts its runs in place of the earlier ones, whose
// result files the new ones overwrite.
func (d *Driver) lengthen(ctx context.Context, l float64) {
	if d.longer == nil {
		d.longer = map[float64]int{}
	}
	d.longer[l]++
	fmt.Fprintf(d.errw, "refining: %s %s is unresolved; running it again twice as long\n", d.cfg.Kind, strconv.FormatFloat(l, 'f', -1, 64))
	rows, windows := d.rows[:0:0], d.windows[:0:0]
	for i := range d.rows {
		if d.rows[i].Load != l {
			rows, windows = append(rows, d.rows[i]), append(windows, d.windows[i])
		}
	}
	d.rows, d.windows = rows, windows
	d.total += d.cfg.Repeat.Planned()
	d.runLoad(ctx, l)
}

// tested reports whether a step at load l has run.
func (d *Driver) tested(l float64) bool {
	for _, r := range d.rows {
		if r.Load == l {
			return true
		}
	}
	return false
}
