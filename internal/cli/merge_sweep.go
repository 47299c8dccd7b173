package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/sweep"
)

// sweepWorkerGlob and stepDir are merge's, by the names the sweep
// tests use.
const sweepWorkerGlob = merge.SweepWorkerGlob

func stepDir(sweepPath string) string { return merge.StepDir(sweepPath) }

// mergeSweeps merges the workers' sweeps step by step — each step's
// records exactly as a run merge does — and analyses the merged steps
// as sweep does: the same table and verdict, and with -o the same sweep
// file (and CSV), its steps' merged results in the folder of its name.
func mergeSweeps(env *Env, files []string, output string) error {
	ws, err := merge.ReadSweepWorkers(files)
	if err != nil {
		return &UsageError{Err: err}
	}
	dir := ""
	if output != "" {
		dir = stepDir(output)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("merged sweep: %w", err)
		}
	}
	var rows []capacity.Row
	for _, name := range ws[0].Steps {
		row, err := mergeStep(env.Stderr, ws, name, dir)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	an, err := merge.AnalyzeSweep(ws, rows, sweep.LateMarker)
	if err != nil {
		return err
	}
	return writeMergedSweep(env.Stdout, an, output, dir)
}

// mergeStep merges one step's records across the workers, saves the
// merged step result into dir ("" = not saved) and returns its row.
func mergeStep(errw io.Writer, ws []merge.SweepWorker, name, dir string) (capacity.Row, error) {
	inputs, err := merge.StepInputs(ws, name)
	if err != nil {
		return capacity.Row{}, &UsageError{Err: err}
	}
	m, err := merge.Merge(inputs)
	if err != nil {
		return capacity.Row{}, &UsageError{Err: err}
	}
	s, err := summarizeRecords(&m.Params, m.Records)
	if err != nil {
		return capacity.Row{}, err
	}
	step := merge.StepName(name)
	fmt.Fprintf(errw, "Step %s: %d workers, %d requests; the workers began dispatch within %v of each other.\n",
		step, m.Worker.Count, len(m.Records), m.StartSpread.Round(time.Microsecond))
	st := merge.StepOf(ws, &m.Params)
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
	if st.Kind != capacity.RequestRate {
		row.SteadyThroughput(steady) // as sweep's own closed-loop rows
	}
	return row, nil
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
