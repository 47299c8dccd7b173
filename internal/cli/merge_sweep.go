package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// sweepWorkerGlob matches the sweep files workers save
// (sweep-RUNID-worker-I.json; sweepDriver.sweepPath).
const sweepWorkerGlob = "sweep-*-worker-*.json"

// sweepFiles returns the workers' sweep files among args (folders give
// theirs), or none when args are a run's results. Mixing both is refused.
func sweepFiles(args []string) ([]string, error) {
	var sweeps []string
	runs := 0
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		switch found, _ := filepath.Glob(filepath.Join(a, sweepWorkerGlob)); {
		case st.IsDir() && len(found) > 0:
			sweeps = append(sweeps, found...)
		case !st.IsDir() && strings.HasPrefix(filepath.Base(a), "sweep-") && filepath.Ext(a) == ".json":
			sweeps = append(sweeps, a)
		default:
			runs++
		}
	}
	if len(sweeps) > 0 && runs > 0 {
		return nil, usageErrorf("give either the workers' sweep files (sweep-*-worker-*.json) or a run's results, not both")
	}
	return sweeps, nil
}

// sweepWorker is one worker's sweep as merge reads it.
type sweepWorker struct {
	path  string
	sweep *capacity.Sweep
	steps []string // its steps' records files, by name (sorted)
}

// readSweepWorkers reads and checks the workers' sweeps: one run (the
// same checks and words as a run merge), the same ladder and the same
// steps on every worker. Worker 0 comes first.
func readSweepWorkers(files []string) ([]sweepWorker, error) {
	ws := make([]sweepWorker, len(files))
	members := make([]merge.Member, len(files))
	for i, f := range files {
		sf, err := report.ReadSweepFile(f)
		if err != nil {
			return nil, err
		}
		switch w := sf.Sweep.Worker; {
		case w == nil:
			return nil, fmt.Errorf("%s is not a worker's sweep (it has no run id): run each worker's sweep with --worker-count N", f)
		case w.Merged:
			return nil, fmt.Errorf("%s is already a merged sweep: merge the workers' own sweep files", f)
		}
		ws[i] = sweepWorker{path: f, sweep: sf.Sweep}
		found, _ := filepath.Glob(filepath.Join(stepDir(f), "*.records.jsonl"))
		for _, p := range found {
			ws[i].steps = append(ws[i].steps, filepath.Base(p))
		}
		slices.Sort(ws[i].steps)
		members[i] = merge.Member{Name: f, Worker: sf.Sweep.Worker}
	}
	first, err := merge.Check(members)
	if err != nil {
		return nil, err
	}
	ws[0], ws[first] = ws[first], ws[0]
	return ws, sameLadder(ws)
}

// stepDir is the folder of a sweep file's step results.
func stepDir(sweepPath string) string { return strings.TrimSuffix(sweepPath, ".json") }

// sameLadder checks that every worker ran the loads and the steps of
// worker 0: a worker that stopped early, or lost a step's records,
// cannot be merged into that step.
func sameLadder(ws []sweepWorker) error {
	ref := &ws[0]
	if len(ref.steps) == 0 {
		return fmt.Errorf("%s: no step records in %s/: each step of a worker's sweep keeps its records there", ref.path, stepDir(ref.path))
	}
	run := ref.sweep.Worker.RunID
	for i := range ws {
		w := &ws[i]
		if w.sweep.LoadKind != ref.sweep.LoadKind || !slices.EqualFunc(w.sweep.Steps, ref.sweep.Steps, func(a, b capacity.Row) bool { return a.Load == b.Load }) {
			return fmt.Errorf("run %s: %s and %s swept different ladders", run, ref.path, w.path)
		}
		for _, s := range ref.steps {
			if !slices.Contains(w.steps, s) {
				return fmt.Errorf("run %s: step %s is missing from worker %d (no %s in %s/): merge needs every worker's records of every step", run, strings.TrimSuffix(s, ".records.jsonl"), w.sweep.Worker.Index, s, stepDir(w.path))
			}
		}
		for _, s := range w.steps {
			if !slices.Contains(ref.steps, s) {
				return fmt.Errorf("run %s: step %s is missing from worker 0 (no %s in %s/): merge needs every worker's records of every step", run, strings.TrimSuffix(s, ".records.jsonl"), s, stepDir(ref.path))
			}
		}
	}
	return nil
}

// mergeSweeps merges the workers' sweeps step by step — each step's
// records exactly as a run merge does — and analyses the merged steps
// as sweep does: the same table and verdict, and with -o the same sweep
// file (and CSV), its steps' merged results in the folder of its name.
func mergeSweeps(env *Env, files []string, output string) error {
	ws, err := readSweepWorkers(files)
	if err != nil {
		return &UsageError{Err: err}
	}
	ref := ws[0].sweep
	dir := ""
	if output != "" {
		dir = stepDir(output)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("merged sweep: %w", err)
		}
	}
	var rows []capacity.Row
	for _, name := range ws[0].steps {
		row, err := mergeStep(env.Stderr, ws, name, dir)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	an, err := capacity.Analyze(ref.LoadKind, ref.SLA, rows)
	if err != nil {
		return err
	}
	an.Label = ref.Label
	if ref.Pricing != nil {
		an.Price(ref.Pricing)
	}
	for i := range ws {
		for _, n := range ws[i].sweep.Notes {
			if strings.Contains(n, lateMarker) {
				an.Notes = append(an.Notes, n)
			}
		}
	}
	info := *ref.Worker
	info.Index, info.Merged, info.Clock = 0, true, nil
	an.Worker = &info
	return writeMergedSweep(env.Stdout, an, output, dir)
}

// mergeStep merges one step's records across the workers, saves the
// merged step result into dir ("" = not saved) and returns its row.
func mergeStep(errw io.Writer, ws []sweepWorker, name, dir string) (capacity.Row, error) {
	inputs := make([]merge.Input, len(ws))
	for i := range ws {
		in, err := readMergeInput(filepath.Join(stepDir(ws[i].path), name))
		if err != nil {
			return capacity.Row{}, &UsageError{Err: err}
		}
		inputs[i] = *in
	}
	m, err := merge.Merge(inputs)
	if err != nil {
		return capacity.Row{}, &UsageError{Err: err}
	}
	s, err := summarizeRecords(&m.Params, m.Records)
	if err != nil {
		return capacity.Row{}, err
	}
	step := strings.TrimSuffix(name, ".records.jsonl")
	fmt.Fprintf(errw, "Step %s: %d workers, %d requests; the workers began dispatch within %v of each other.\n",
		step, m.Worker.Count, len(m.Records), m.StartSpread.Round(time.Microsecond))
	kind := ws[0].sweep.LoadKind
	st := capacity.Step{Load: stepLoadOf(kind, &m.Params), Kind: kind}
	for i := range ws {
		for _, r := range ws[i].sweep.Steps {
			if r.Load == st.Load {
				st.MeanThinkS = r.MeanThinkS
				// The busiest worker's CPU: any client at its limit limits the step.
				if r.ClientCPU != nil && (st.ClientCPU == nil || *r.ClientCPU > *st.ClientCPU) {
					v := *r.ClientCPU
					st.ClientCPU = &v
				}
			}
		}
	}
	obj, steady, err := mergedObject(m, s)
	if err != nil {
		return capacity.Row{}, err
	}
	if dir != "" {
		if st.ResultFile, err = report.SaveResult(dir, step+".json", false, obj); err != nil {
			return capacity.Row{}, fmt.Errorf("saving the merged step: %w", err)
		}
	}
	row := capacity.RowFrom(s, st)
	if kind != capacity.RequestRate {
		row.SteadyThroughput(steady) // as sweep's own closed-loop rows
	}
	return row, nil
}

// stepLoadOf is a step's load as its records' params give it: the
// concurrency or user count (bench.Plan.Step sets max_concurrency to
// it), or the request rate; the params describe the whole step, not a
// worker's share.
func stepLoadOf(kind capacity.Kind, p *record.Params) float64 {
	if kind == capacity.RequestRate {
		return float64(p.RequestRate)
	}
	if p.MaxConcurrency == nil {
		return 0
	}
	return float64(*p.MaxConcurrency)
}

// writeMergedSweep prints the table and verdict and, with a path, saves
// the sweep file and its CSV, as sweep does.
func writeMergedSweep(out io.Writer, an *capacity.Sweep, path, dir string) error {
	if err := capacity.WriteText(out, an); err != nil {
		return err
	}
	if path == "" {
		return nil
	}
	if err := writeFileWith(path, func(w io.Writer) error { return capacity.WriteJSON(w, an) }); err != nil {
		return fmt.Errorf("saving the merged sweep: %w", err)
	}
	csvPath := stepDir(path) + ".csv"
	if err := writeFileWith(csvPath, func(w io.Writer) error { return capacity.WriteCSV(w, an) }); err != nil {
		return fmt.Errorf("saving the merged sweep: %w", err)
	}
	fmt.Fprintf(out, "Merged sweep saved to %s (rows: %s; merged step results in %s/)\n", path, csvPath, dir)
	return nil
}
