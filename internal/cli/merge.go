package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/sweep"
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
			err := mergeRules.Run(args, merge.Outputs{Result: output, Records: saveRecords}, env.Stdout, env.Stderr)
			if ie := (*merge.InputError)(nil); errors.As(err, &ie) {
				return &UsageError{Err: ie.Err} // a refused input exits 2
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the merged result JSON (vLLM's format, with per-request arrays) to this file; for sweeps, the merged sweep file")
	cmd.Flags().StringVar(&saveRecords, "save-records", "", "also write the merged records (one timeline) to this file, for llmbench metrics and report")
	return cmd
}

// mergeRules are merge's rules as the other commands apply them: the
// figures of records as llmbench metrics computes them (merge's
// default), the user's files through writeUserFile, the sweep's mark of a
// late step.
var mergeRules = merge.Rules{WriteFile: writeUserFile, LateMarker: sweep.LateMarker}
