package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
)

// newMergeCmd builds "llmbench merge".
func newMergeCmd(env *Env) *cobra.Command {
	var output, saveRecords string
	cmd := &cobra.Command{
		Use:   "merge RESULT... [-o merged.json]",
		Short: "Combine the workers of a distributed run into one exact result",
		Long: `Combine the per-request records of the workers of one distributed run
(llmbench run --worker-index I --worker-count N) into one result, as if
one process had sent every request: records are placed on one wall-clock
timeline (the earliest worker's start) and every metric is recomputed
from the union by the same code as a single run — percentiles of the
union, peak figures in 1-second buckets of the common timeline, the
duration from the earliest start to the latest end. Nothing is averaged.

Each RESULT is a worker's records file (*.records.jsonl), its result
JSON saved with --save-detailed (the records file beside it is read), or
a folder: its files named *-worker-*.records.jsonl (the workers' default
names).
merge refuses, with exit code 2: a summary without per-request records,
results of different runs or workloads, a missing or duplicate worker.

Sweeps: given the workers' sweep files (sweep-*-worker-*.json, from
llmbench sweep --worker-count N) or a folder holding them, merge checks
one run and one ladder, merges each step's records across the workers as
above, and analyses the merged steps as sweep does (table, verdict; with
-o the merged sweep file, its CSV and each merged step's result in the
folder of the same name). A step missing from one worker is refused.
See docs/distributed.md.`,
		Example: `  llmbench merge results/run-*-worker-*.json -o merged.json
  llmbench merge results/run1 -o results/run1/merged.json --save-records results/run1/merged.records.jsonl
  llmbench merge results/sweep1 -o results/sweep1/sweep-merged.json`,
		Args: argsBetween(1, -1, "want the result or records files of every worker"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(env, args, output, saveRecords)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the merged result JSON (vLLM's format, with per-request arrays) to this file; for sweeps, the merged sweep file")
	cmd.Flags().StringVar(&saveRecords, "save-records", "", "also write the merged records (one timeline) to this file, for llmbench metrics and report")
	return cmd
}

// runMerge reads, merges, prints the table and writes the outputs.
func runMerge(env *Env, args []string, output, saveRecords string) error {
	sweeps, err := merge.SweepFiles(args)
	if err != nil {
		err = &UsageError{Err: err}
	} else {
		sweeps, err = merge.Unique(sweeps)
	}
	if err != nil || len(sweeps) > 0 {
		if err == nil && saveRecords != "" {
			err = usageErrorf("--save-records merges one run; a sweep's merged steps are saved beside -o")
		}
		if err != nil {
			return err
		}
		return mergeSweeps(env, sweeps, output)
	}
	inputs, err := merge.ReadWorkers(args)
	if err != nil {
		return &UsageError{Err: err}
	}
	m, err := merge.Merge(inputs)
	if err != nil {
		return &UsageError{Err: err}
	}
	s, err := summarizeRecords(&m.Params, m.Records)
	if err != nil {
		return err
	}
	merge.WriteNotes(env.Stderr, m)
	if err := report.WriteWarnings(env.Stderr, s); err != nil {
		return err
	}
	// What `llmbench metrics` prints for a records file.
	title := report.StreamSpecifics
	if m.Params.EndpointName != "" {
		title = report.SageMakerSpecifics
	}
	steady, err := recordsSteadyState(&m.Params, m.Records, s, metrics.SteadyStateOptions{})
	if err != nil {
		return err
	}
	opt := report.RunReportOptions{Title: title}
	withSteadySection(&opt, steady.value) // metrics.go
	if err := report.WriteRunReport(env.Stdout, s, &m.Params, opt); err != nil {
		return err
	}
	if saveRecords != "" {
		if err := writeMergedRecords(saveRecords, m); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Merged records saved to %s\n", saveRecords)
	}
	if output == "" {
		return nil
	}
	obj, _, err := mergedObject(m, s)
	if err != nil {
		return err
	}
	path, err := report.SaveResult("", output, false, obj)
	if err != nil {
		return fmt.Errorf("saving merged result: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Merged result saved to %s\n", path)
	return nil
}

// mergedObject is the merged result JSON (merge.Object) with
// steady_state as llmbench metrics computes it from records; and the
// steady state.
func mergedObject(m *merge.Result, s *metrics.Summary) (*report.Object, *metrics.SteadyState, error) {
	steady, err := recordsSteadyState(&m.Params, m.Records, s, metrics.SteadyStateOptions{})
	if err != nil {
		return nil, nil, err
	}
	obj, err := merge.Object(m, s, report.ResultOptions{WithSteadyState: steady.write, SteadyState: steady.value})
	if err != nil {
		return nil, nil, err
	}
	return obj, steady.value, nil
}

// writeMergedRecords saves the merged records (merge.WriteRecords).
func writeMergedRecords(path string, m *merge.Result) error {
	if err := writeUserFile(path, func(w io.Writer) error { return merge.WriteRecords(w, m) }); err != nil {
		return fmt.Errorf("merged records: %w", err)
	}
	return nil
}
