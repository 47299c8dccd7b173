package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/savedfile"
)

// SweepWorkerGlob matches the sweep files workers save
// (sweep-RUNID-worker-I.json, as llmbench sweep --worker-count names them).
const SweepWorkerGlob = "sweep-*-worker-*.json"

// SweepFiles returns the workers' sweep files among args (folders give
// theirs; a file is a sweep by its content, savedfile.Sniff), or none
// when args are a run's results. Mixing both is refused.
func SweepFiles(args []string) ([]string, error) {
	var sweeps []string
	runs := 0
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			found, _ := filepath.Glob(filepath.Join(a, SweepWorkerGlob))
			if len(found) > 0 {
				sweeps = append(sweeps, found...)
			} else {
				runs++
			}
			continue
		}
		k, err := savedfile.Sniff(a)
		if err != nil {
			return nil, err
		}
		if k == savedfile.Sweep {
			sweeps = append(sweeps, a)
		} else {
			runs++
		}
	}
	if len(sweeps) > 0 && runs > 0 {
		return nil, fmt.Errorf("give either the workers' sweep files (sweep-*-worker-*.json) or a run's results, not both")
	}
	return sweeps, nil
}

// SweepWorker is one worker's sweep as merge reads it.
type SweepWorker struct {
	Path  string
	Sweep *capacity.Sweep
	// Steps are its steps' records files, by name (sorted).
	Steps []string
}

// StepDir is the folder of a sweep file's step results.
func StepDir(sweepPath string) string { return strings.TrimSuffix(sweepPath, ".json") }

// ReadSweepWorkers reads and checks the workers' sweeps: one run (the
// same checks and words as a run merge), the same ladder and the same
// steps on every worker. Worker 0 comes first.
func ReadSweepWorkers(files []string) ([]SweepWorker, error) {
	ws := make([]SweepWorker, len(files))
	members := make([]Member, len(files))
	for i, f := range files {
		sw, err := savedfile.ReadSweep(f)
		if err != nil {
			return nil, err
		}
		switch w := sw.Worker; {
		case w == nil:
			return nil, fmt.Errorf("%s is not a worker's sweep (it has no run id): run each worker's sweep with --worker-count N", f)
		case w.Merged:
			return nil, fmt.Errorf("%s is already a merged sweep: merge the workers' own sweep files", f)
		}
		ws[i] = SweepWorker{Path: f, Sweep: sw}
		found, _ := filepath.Glob(filepath.Join(StepDir(f), "*.records.jsonl"))
		for _, p := range found {
			ws[i].Steps = append(ws[i].Steps, filepath.Base(p))
		}
		slices.Sort(ws[i].Steps)
		members[i] = Member{Name: f, Worker: sw.Worker}
	}
	first, err := Check(members)
	if err != nil {
		return nil, err
	}
	ws[0], ws[first] = ws[first], ws[0]
	return ws, sameLadder(ws)
}

// sameLadder checks that every worker ran the loads and the steps of
// worker 0: a worker that stopped early, or lost a step's records,
// cannot be merged into that step.
func sameLadder(ws []SweepWorker) error {
	ref := &ws[0]
	if len(ref.Steps) == 0 {
		return fmt.Errorf("%s: no step records in %s/: each step of a worker's sweep keeps its records there", ref.Path, StepDir(ref.Path))
	}
	run := ref.Sweep.Worker.RunID
	for i := range ws {
		w := &ws[i]
		if w.Sweep.LoadKind != ref.Sweep.LoadKind || !slices.EqualFunc(w.Sweep.Steps, ref.Sweep.Steps, func(a, b capacity.Row) bool { return a.Load == b.Load }) {
			return fmt.Errorf("run %s: %s and %s swept different ladders", run, ref.Path, w.Path)
		}
		for _, s := range ref.Steps {
			if !slices.Contains(w.Steps, s) {
				return fmt.Errorf("run %s: step %s is missing from worker %d (no %s in %s/): merge needs every worker's records of every step", run, StepName(s), w.Sweep.Worker.Index, s, StepDir(w.Path))
			}
		}
		for _, s := range w.Steps {
			if !slices.Contains(ref.Steps, s) {
				return fmt.Errorf("run %s: step %s is missing from worker 0 (no %s in %s/): merge needs every worker's records of every step", run, StepName(s), s, StepDir(ref.Path))
			}
		}
	}
	return nil
}

// StepName is a step's name from its records file's name.
func StepName(recordsFile string) string { return strings.TrimSuffix(recordsFile, ".records.jsonl") }

// StepInputs reads every worker's records of the step saved as name.
func StepInputs(ws []SweepWorker, name string) ([]Input, error) {
	inputs := make([]Input, len(ws))
	for i := range ws {
		in, err := ReadInput(filepath.Join(StepDir(ws[i].Path), name))
		if err != nil {
			return nil, err
		}
		inputs[i] = *in
	}
	return inputs, nil
}

// StepOf is the merged step whose records have the params p: its load
// as the params give it, the workers' think time there and the busiest
// worker's client CPU (any client at its limit limits the step).
func StepOf(ws []SweepWorker, p *record.Params) capacity.Step {
	kind := ws[0].Sweep.LoadKind
	st := capacity.Step{Load: stepLoad(kind, p), Kind: kind}
	for i := range ws {
		for _, r := range ws[i].Sweep.Steps {
			if r.Load == st.Load {
				st.MeanThinkS = r.MeanThinkS
				if r.ClientCPU != nil && (st.ClientCPU == nil || *r.ClientCPU > *st.ClientCPU) {
					v := *r.ClientCPU
					st.ClientCPU = &v
				}
			}
		}
	}
	return st
}

// stepLoad is a step's load as its records' params give it: the
// concurrency or user count (bench.Plan.Step sets max_concurrency to
// it), or the request rate; the params describe the whole step, not a
// worker's share.
func stepLoad(kind capacity.Kind, p *record.Params) float64 {
	if kind == capacity.RequestRate {
		return float64(p.RequestRate)
	}
	if p.MaxConcurrency == nil {
		return 0
	}
	return float64(*p.MaxConcurrency)
}

// AnalyzeSweep analyses the merged steps' rows as sweep does, under
// worker 0's SLA, label and pricing, as one merged run; the workers'
// notes that contain carry (the sweep's mark of a step that started
// late) are carried over.
func AnalyzeSweep(ws []SweepWorker, rows []capacity.Row, carry string) (*capacity.Sweep, error) {
	ref := ws[0].Sweep
	an, err := capacity.Analyze(ref.LoadKind, ref.SLA, rows)
	if err != nil {
		return nil, err
	}
	an.Label = ref.Label
	if ref.Pricing != nil {
		an.Price(ref.Pricing)
	}
	for i := range ws {
		for _, n := range ws[i].Sweep.Notes {
			if strings.Contains(n, carry) {
				an.Notes = append(an.Notes, n)
			}
		}
	}
	info := *ref.Worker
	info.Index, info.Merged, info.Clock = 0, true, nil
	an.Worker = &info
	return an, nil
}
