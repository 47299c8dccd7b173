package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
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
	sweeps, err := sweepFiles(args)
	if err == nil {
		sweeps, err = uniqueFiles(sweeps)
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
	files, err := mergeFiles(args)
	if err != nil {
		return err
	}
	for i, a := range files {
		if files[i], err = mergeRecordsPath(a); err != nil {
			return &UsageError{Err: err}
		}
	}
	if files, err = uniqueFiles(files); err != nil {
		return &UsageError{Err: err}
	}
	inputs := make([]merge.Input, 0, len(files))
	for _, a := range files {
		in, err := readMergeInput(a)
		if err != nil {
			return &UsageError{Err: err}
		}
		inputs = append(inputs, *in)
	}
	m, err := merge.Merge(inputs)
	if err != nil {
		return &UsageError{Err: err}
	}
	s, err := summarizeRecords(&m.Params, m.Records)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "Merged run %s: %d workers, %d requests; the workers began dispatch within %v of each other.\n",
		m.Worker.RunID, m.Worker.Count, len(m.Records), m.StartSpread.Round(time.Microsecond))
	if len(m.Unsynced) > 0 {
		fmt.Fprintf(env.Stderr, "Note: worker(s) %v had a clock their kernel marks unsynchronised (no NTP/chrony): the common timeline assumes synchronised clocks (docs/distributed.md).\n", m.Unsynced)
	}
	if m.ClockBound > 0 {
		fmt.Fprintf(env.Stderr, "The synchronised workers' clocks agreed within %v (the kernel's maximum-error estimates).\n", m.ClockBound)
	}
	if len(m.Unfinished) > 0 {
		fmt.Fprintf(env.Stderr, "Note: worker(s) %v did not finish (no closing line in their records): their end is estimated from their records.\n", m.Unfinished)
	}
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

// mergedObject is the merged result JSON: vLLM's result with the
// per-request arrays, steady_state (as llmbench metrics computes it from
// records), the llmbench object and the llmbench_merge object; and the
// steady state.
func mergedObject(m *merge.Result, s *metrics.Summary) (*report.Object, *metrics.SteadyState, error) {
	steady, err := recordsSteadyState(&m.Params, m.Records, s, metrics.SteadyStateOptions{})
	if err != nil {
		return nil, nil, err
	}
	obj, err := report.Result(s, &m.Params, m.Records, report.ResultOptions{Detailed: true, Extras: true,
		WithSteadyState: steady.write, SteadyState: steady.value})
	if err != nil {
		return nil, nil, err
	}
	obj.Set("llmbench_merge", map[string]any{
		"run_id": m.Worker.RunID, "config_hash": m.Worker.ConfigHash, "workers": m.Worker.Count,
		"start_unix_ns": m.Anchor.UnixNano, "start_spread_s": m.StartSpread.Seconds(),
		"clock_unsynced_workers": m.Unsynced, "clock_bound_s": m.ClockBound.Seconds(),
	})
	return obj, steady.value, nil
}

// workerRecordsGlob matches the records files workers save under their
// default result names (RUNID-worker-I.json, with --save-detailed).
const workerRecordsGlob = "*-worker-*.records.jsonl"

// mergeFiles expands folder arguments into the worker records files they
// hold, so that a shell-less container (Kubernetes, docs/distributed.md)
// can merge a folder without a glob.
func mergeFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, workerRecordsGlob))
		if err != nil || len(found) == 0 {
			return nil, usageErrorf("%s holds no worker records (%s): run the workers with --save-detailed and their default result names", a, workerRecordsGlob)
		}
		files = append(files, found...)
	}
	return files, nil
}

// mergeRecordsPath is where one worker's records are: the file itself
// when it is a records file, else the records file saved beside a result
// JSON (NAME.json -> NAME.records.jsonl). A result without one is a
// summary that cannot be merged.
func mergeRecordsPath(path string) (string, error) {
	first, err := firstLine(path)
	if err != nil {
		return "", err
	}
	if bytes.Contains(first, []byte(`"llmbench_records"`)) {
		return path, nil
	}
	recPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".records.jsonl"
	if _, err := os.Stat(recPath); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is a summary without per-request records (no %s): run the workers with --save-detailed or --save-records and merge those", path, filepath.Base(recPath))
	}
	return recPath, nil
}

// uniqueFiles drops the paths that name a file listed before them (the
// same path again, a link to it): one file is one worker's share, and
// "llmbench merge w*/*" lists a result JSON beside its own records file.
func uniqueFiles(paths []string) ([]string, error) {
	out := paths[:0:0]
	var seen []os.FileInfo
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(s, st) }) {
			continue
		}
		seen = append(seen, st)
		out = append(out, p)
	}
	return out, nil
}

// readMergeInput reads one worker's records file.
func readMergeInput(recPath string) (*merge.Input, error) {
	f, err := os.Open(recPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := record.ReadHeader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", recPath, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	p, recs, _, err := record.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", recPath, err)
	}
	return &merge.Input{Name: recPath, Header: h, Params: p, Records: recs}, nil
}

// firstLine is the first line of a file (at most 1 MiB of it).
func firstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadSlice('\n')
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return line, nil
}

// writeMergedRecords writes the merged records as one streamed records
// file: header with the merged worker block and the earliest anchor, the
// records, the closing line with the merged params.
func writeMergedRecords(path string, m *merge.Result) error {
	anchor, worker := m.Anchor, m.Worker
	err := writeUserFile(path, func(w io.Writer) error {
		s, err := record.NewStream(w, record.Header{Params: m.Params, Start: &anchor, Worker: &worker})
		if err != nil {
			return err
		}
		for i := range m.Records {
			if err := s.Add(&m.Records[i]); err != nil {
				break // kept by the stream and returned by Close
			}
		}
		return s.Close(&m.Params, 0)
	})
	if err != nil {
		return fmt.Errorf("merged records: %w", err)
	}
	return nil
}
