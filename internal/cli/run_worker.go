package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// Environment variables that give the worker flags their defaults
// (docs/distributed.md): Kubernetes sets JOB_COMPLETION_INDEX in every pod
// of an Indexed Job; the worker count is ours to pass.
const (
	envWorkerIndex = "JOB_COMPLETION_INDEX"
	envWorkerCount = "LLMBENCH_WORKER_COUNT"
)

// workerFlags are run's distributed-run flags (ours).
type workerFlags struct {
	index, count int
	runID        string
	startAt      string

	// Resolved by resolveWorker: info is nil for a single process; at is
	// the parsed --start-at (zero without); idPrefix and resultFile are a
	// worker's defaults for --request-id-prefix and --result-filename (the
	// flags themselves are never written after parsing).
	info       *record.WorkerInfo
	at         time.Time
	idPrefix   string
	resultFile string
}

// bindWorkerFlags declares the distributed-run flags.
func bindWorkerFlags(fs *pflag.FlagSet, w *workerFlags) {
	fs.IntVar(&w.index, "worker-index", 0, "distributed run: this worker's index, 0..count-1 (default $"+envWorkerIndex+"; ours, docs/distributed.md)")
	fs.IntVar(&w.count, "worker-count", 0, "distributed run: the number of workers; each sends the requests (or runs the --users) whose index is its own modulo the count (default $"+envWorkerCount+"; 0 = one process; ours)")
	fs.StringVar(&w.runID, "run-id", "", "distributed run: the id every worker's records carry, checked by llmbench merge (default: derived from the seed, --start-at and the workload's flags; ours)")
	fs.StringVar(&w.startAt, "start-at", "", "wait until this wall-clock instant (RFC 3339, e.g. 2026-12-01T15:00:00Z) before dispatch, after the ready check and warm-ups; workers' clocks must be NTP-synchronised (ours)")
}

// workerExcluded are the flags that do not define the workload: output,
// observability, exit policy, cost, and the worker flags themselves. All
// others enter the config hash.
var workerExcluded = map[string]bool{
	"worker-index": true, "worker-count": true, "run-id": true, "start-at": true,
	"save-result": true, "save-detailed": true, "append-result": true, "save-records": true,
	"result-dir": true, "result-filename": true, "disable-tqdm": true, "help": true,
	"metrics-addr": true, "metrics-linger": true, "pushgateway": true,
	"config": true, "no-config": true, "course": true, "print-command": true,
	"cloudwatch": true, "cloudwatch-wait": true, "price-per-hour": true, "instance-type": true,
	"instance-count": true, "profile": true, "no-instance-metadata": true,
	"max-error-rate": true, "latency-from-intended": true, "html": true, "require-valid": true,
	"no-steady-state": true, "steady-state-threshold": true, "steady-state-min-window": true,
}

// configHash hashes the name and value of every flag that defines the
// workload (given or default), in name order: workers started with the
// same workload get the same hash, whatever their output flags.
func configHash(fs *pflag.FlagSet) string {
	h := sha256.New()
	fs.VisitAll(func(fl *pflag.Flag) { // VisitAll goes in lexicographical order
		if !workerExcluded[fl.Name] {
			fmt.Fprintf(h, "%s=%s\n", fl.Name, fl.Value.String())
		}
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// resolveWorker resolves the worker flags (flag, else environment) before
// the plan is built: in worker mode it fixes the run id, the config hash,
// the request ids (shared prefix, global indices) and the default result
// file name, which must differ between workers.
func (o *runOptions) resolveWorker(cmd *cobra.Command, env *Env) error {
	w, fs := &o.w, cmd.Flags()
	if fs.Lookup("worker-count") == nil {
		return nil // demo: no worker flags
	}
	if w.startAt != "" {
		at, err := time.Parse(time.RFC3339Nano, w.startAt)
		if err != nil {
			return usageErrorf("--start-at %q: want an RFC 3339 instant such as 2026-12-01T15:00:00Z", w.startAt)
		}
		w.at = at
	}
	if err := w.fromEnv(fs, env); err != nil {
		return err
	}
	if w.count == 0 {
		if w.runID != "" || fs.Changed("worker-index") {
			return usageErrorf("--run-id and --worker-index need --worker-count (or $%s)", envWorkerCount)
		}
		return nil
	}
	if w.count < 0 || w.index < 0 || w.index >= w.count {
		return usageErrorf("--worker-index %d --worker-count %d: want 0 <= index < count", w.index, w.count)
	}
	hash := configHash(fs)
	id := w.runID
	if id == "" {
		sum := sha256.Sum256([]byte(hash + "|" + strconv.FormatInt(o.f.ds.Seed, 10) + "|" + w.startAt))
		id = "run-" + hex.EncodeToString(sum[:])[:12]
	}
	if strings.ContainsAny(id, `/\`) {
		return usageErrorf("--run-id %q: must not contain a path separator (it starts the result file names)", id)
	}
	w.info = &record.WorkerInfo{RunID: id, ConfigHash: hash, Index: w.index, Count: w.count}
	if !w.at.IsZero() {
		w.info.StartAt = w.at.UTC().Format(time.RFC3339Nano)
	}
	w.idPrefix = "bench-" + strings.TrimPrefix(id, "run-") + "-"
	w.resultFile = fmt.Sprintf("%s-worker-%d.json", id, w.index)
	return nil
}

// resultFilename is --result-filename, else a worker's own file name; ""
// asks for vLLM's automatic name.
func (o *runOptions) resultFilename() string {
	if o.f.resultFilename != "" {
		return o.f.resultFilename
	}
	return o.w.resultFile
}

// fromEnv fills the index and count not given as flags from the
// environment.
func (w *workerFlags) fromEnv(fs *pflag.FlagSet, env *Env) error {
	for _, v := range []struct {
		flag, env string
		dst       *int
	}{{"worker-count", envWorkerCount, &w.count}, {"worker-index", envWorkerIndex, &w.index}} {
		s := env.Getenv(v.env)
		if fs.Changed(v.flag) || s == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return usageErrorf("$%s=%q: want an integer (it defaults --%s)", v.env, s, v.flag)
		}
		*v.dst = n
	}
	return nil
}

// share turns the plan into this worker's share and sets the start
// instant; a single process keeps its plan (with --start-at, if given).
func (w *workerFlags) share(plan *bench.Plan, errw io.Writer) (*bench.Plan, error) {
	plan.StartAt = w.at
	if w.info == nil {
		return plan, nil
	}
	q, err := plan.Share(bench.Share{Index: w.info.Index, Count: w.info.Count})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	fmt.Fprintf(errw, "Worker %d of %d, run %s (config %s): %d of %d requests", w.info.Index, w.info.Count, w.info.RunID, w.info.ConfigHash, len(q.Requests), len(plan.Requests))
	if !w.at.IsZero() {
		fmt.Fprintf(errw, ", dispatch at %s", w.info.StartAt)
	}
	fmt.Fprintln(errw, ".")
	if w.at.IsZero() {
		fmt.Fprintln(errw, "Note: no --start-at: the workers start when they are ready, not together (docs/distributed.md).")
	}
	return q, nil
}

// headerInfo is the worker's header block with its clock state read now,
// just before dispatch; nil for a single process.
func (w *workerFlags) headerInfo() *record.WorkerInfo {
	if w.info == nil {
		return nil
	}
	info := *w.info
	info.Clock = readClockSync()
	return &info
}
