package merge

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/report"
)

// RunSweeps merges the workers' sweeps (files) step by step — each
// step's records exactly as a run merge does — and analyses the merged
// steps as sweep does: the same table and verdict on out, and with
// output the same sweep file (and CSV), its steps' merged results in the
// folder of its name (StepDir). Each step's line goes to errw.
func (r *Rules) RunSweeps(files []string, output string, out, errw io.Writer) error {
	ws, err := ReadSweepWorkers(files)
	if err != nil {
		return &InputError{Err: err}
	}
	dir := ""
	if output != "" {
		dir = StepDir(output)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("merged sweep: %w", err)
		}
	}
	var rows []capacity.Row
	for _, name := range ws[0].Steps {
		row, err := r.step(errw, ws, name, dir)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	an, err := AnalyzeSweep(ws, rows, r.LateMarker)
	if err != nil {
		return err
	}
	return r.writeSweep(out, an, output, dir)
}

// step merges one step's records across the workers, saves the merged
// step result into dir ("" = not saved) and returns its row.
func (r *Rules) step(errw io.Writer, ws []SweepWorker, name, dir string) (capacity.Row, error) {
	inputs, err := StepInputs(ws, name)
	if err != nil {
		return capacity.Row{}, &InputError{Err: err}
	}
	m, err := Merge(inputs)
	if err != nil {
		return capacity.Row{}, &InputError{Err: err}
	}
	f, err := r.figures(&m.Params, m.Records)
	if err != nil {
		return capacity.Row{}, err
	}
	step := StepName(name)
	fmt.Fprintf(errw, "Step %s: %d workers, %d requests; the workers began dispatch within %v of each other.\n",
		step, m.Worker.Count, len(m.Records), m.StartSpread.Round(time.Microsecond))
	st := StepOf(ws, &m.Params)
	obj, err := objectOf(m, f)
	if err != nil {
		return capacity.Row{}, err
	}
	if dir != "" {
		if st.ResultFile, err = report.SaveResult(dir, step+".json", false, obj); err != nil {
			return capacity.Row{}, fmt.Errorf("saving the merged step: %w", err)
		}
	}
	row := capacity.RowFrom(f.Summary, st)
	if st.Kind != capacity.RequestRate {
		row.SteadyThroughput(f.Steady) // as sweep's own closed-loop rows
	}
	return row, nil
}

// writeSweep prints the table and verdict and, with a path, saves the
// sweep file and its CSV, as sweep does.
func (r *Rules) writeSweep(out io.Writer, an *capacity.Sweep, path, dir string) error {
	if err := capacity.WriteText(out, an); err != nil {
		return err
	}
	if path == "" {
		return nil
	}
	if err := r.WriteFile(path, func(w io.Writer) error { return capacity.WriteJSON(w, an) }); err != nil {
		return fmt.Errorf("saving the merged sweep: %w", err)
	}
	csvPath := StepDir(path) + ".csv"
	if err := r.WriteFile(csvPath, func(w io.Writer) error { return capacity.WriteCSV(w, an) }); err != nil {
		return fmt.Errorf("saving the merged sweep: %w", err)
	}
	fmt.Fprintf(out, "Merged sweep saved to %s (rows: %s; merged step results in %s/)\n", path, csvPath, dir)
	return nil
}
