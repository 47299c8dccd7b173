package cli

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/host"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/worker"
)

// workerFlags are run's distributed-run flags (ours; internal/worker).
type workerFlags struct {
	index, count   int
	runID, startAt string
	// r is the worker resolveWorker resolved; info (nil for a single
	// process) and at (the parsed --start-at) are its Info and At, read by
	// the sweep and the records.
	r    worker.Worker
	info *record.WorkerInfo
	at   time.Time
}

// bindWorkerFlags declares the distributed-run flags.
func bindWorkerFlags(fs *pflag.FlagSet, w *workerFlags) {
	fs.IntVar(&w.index, "worker-index", 0, "distributed run: this worker's index, 0..count-1 (default $"+worker.EnvIndex+"; ours, docs/distributed.md)")
	fs.IntVar(&w.count, "worker-count", 0, "distributed run: the number of workers; each sends the requests (or runs the --users) whose index is its own modulo the count (default $"+worker.EnvCount+"; 0 = one process; ours)")
	fs.StringVar(&w.runID, "run-id", "", "distributed run: the id every worker's records carry, checked by llmbench merge (default: derived from the seed, --start-at and the workload's flags; ours)")
	fs.StringVar(&w.startAt, "start-at", "", "wait until this wall-clock instant (RFC 3339, e.g. 2026-12-01T15:00:00Z) before dispatch, after the ready check and warm-ups; workers' clocks must be NTP-synchronised (ours)")
}

// configHash is worker.ConfigHash of every flag in fs, in name order,
// each with its value as the run reads it: the flag's, or for the
// percentile flags the figures the results report (a sweep's follow its
// --sla: runFlags.reported).
func configHash(fs *pflag.FlagSet, reported figures) string {
	read := map[string]string{"percentile-metrics": reported.metrics, "metric-percentiles": reported.percentiles}
	return worker.ConfigHash(flagset.Values(fs, read))
}

// resolveWorker resolves the worker flags (flag, else environment) before
// the plan is built (worker.Resolve).
func (o *runOptions) resolveWorker(cmd *cobra.Command, env *Env) error {
	w, fs := &o.w, cmd.Flags()
	if fs.Lookup("worker-count") == nil {
		return nil // demo: no worker flags
	}
	r, err := worker.Resolve(worker.Settings{Index: w.index, Count: w.count, IndexGiven: fs.Changed("worker-index"),
		CountGiven: fs.Changed("worker-count"), RunID: w.runID, StartAt: w.startAt}, env.Getenv, configHash(fs, o.f.reported()), o.f.ds.Seed)
	if err != nil {
		return &UsageError{Err: err}
	}
	// The environment's index and count count as given from here on
	// (checkRepeat, run again by plan, refuses --runs for them).
	w.r, w.info, w.at, w.index, w.count = r, r.Info, r.At, r.Index, r.Count
	return nil
}

// resultFilename is --result-filename, else a worker's own file name; ""
// asks for vLLM's automatic name.
func (o *runOptions) resultFilename() string {
	if o.f.resultFilename != "" {
		return o.f.resultFilename
	}
	return o.w.r.ResultFile
}

// headerInfo is the records header's worker block, read just before
// dispatch; nil for a single process.
func (w *workerFlags) headerInfo() *record.WorkerInfo { return w.r.HeaderInfo(host.ClockSync) }
