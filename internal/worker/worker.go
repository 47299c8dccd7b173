// Package worker resolves this process's part in a distributed run
// (docs/distributed.md): its index and count (the settings, else the
// environment Kubernetes and the launcher set), the config hash that
// tells workers of one workload apart from another's, the run id, the
// request-id prefix and result file name every worker derives alike, its
// share of the plan and the worker block of its records header.
//
// It does not split a plan (bench.Plan.Share does, the same for run and
// sweep), start anything at --start-at (bench.Execute waits), or combine
// the workers' records (internal/merge). It knows no flag library: the
// command line hands it the settings as names and values.
package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// Environment variables that give the worker settings their defaults
// (docs/distributed.md): Kubernetes sets JOB_COMPLETION_INDEX in every pod
// of an Indexed Job; the worker count is ours to pass.
const (
	EnvIndex = "JOB_COMPLETION_INDEX"
	EnvCount = "LLMBENCH_WORKER_COUNT"
)

// Settings are the worker settings as given (--worker-index,
// --worker-count, --run-id, --start-at).
type Settings struct {
	Index, Count int
	// IndexGiven and CountGiven say the setting was given, so the
	// environment does not override it.
	IndexGiven, CountGiven bool
	RunID                  string
	StartAt                string
}

// Worker is a resolved worker: Info is nil for a single process.
type Worker struct {
	// Index and Count are the settings' or, where not given, the
	// environment's.
	Index, Count int
	Info         *record.WorkerInfo
	// At is the parsed --start-at (zero without; a single process may
	// have one too).
	At time.Time
	// IDPrefix and ResultFile are a worker's defaults for
	// --request-id-prefix and --result-filename ("" for a single process).
	IDPrefix, ResultFile string
}

// Resolve resolves the settings with the environment getenv: in worker
// mode it fixes the run id (given, else derived from hash, seed and
// start), the request ids' shared prefix and the result file name, which
// differs between workers. hash is ConfigHash of the workload's settings.
func Resolve(s Settings, getenv func(string) string, hash string, seed int64) (Worker, error) {
	var w Worker
	if s.StartAt != "" {
		at, err := time.Parse(time.RFC3339Nano, s.StartAt)
		if err != nil {
			return Worker{}, fmt.Errorf("--start-at %q: want an RFC 3339 instant such as 2026-12-01T15:00:00Z", s.StartAt)
		}
		w.At = at
	}
	var err error
	if w.Count, err = fromEnv(s.Count, s.CountGiven, "worker-count", EnvCount, getenv); err != nil {
		return Worker{}, err
	}
	if w.Index, err = fromEnv(s.Index, s.IndexGiven, "worker-index", EnvIndex, getenv); err != nil {
		return Worker{}, err
	}
	if w.Count == 0 {
		if s.RunID != "" || s.IndexGiven {
			return Worker{}, fmt.Errorf("--run-id and --worker-index need --worker-count (or $%s)", EnvCount)
		}
		return w, nil
	}
	if w.Count < 0 || w.Index < 0 || w.Index >= w.Count {
		return Worker{}, fmt.Errorf("--worker-index %d --worker-count %d: want 0 <= index < count", w.Index, w.Count)
	}
	id := s.RunID
	if id == "" {
		sum := sha256.Sum256([]byte(hash + "|" + strconv.FormatInt(seed, 10) + "|" + s.StartAt))
		id = "run-" + hex.EncodeToString(sum[:])[:12]
	}
	if strings.ContainsAny(id, `/\`) {
		return Worker{}, fmt.Errorf("--run-id %q: must not contain a path separator (it starts the result file names)", id)
	}
	w.Info = &record.WorkerInfo{RunID: id, ConfigHash: hash, Index: w.Index, Count: w.Count}
	if !w.At.IsZero() {
		w.Info.StartAt = w.At.UTC().Format(time.RFC3339Nano)
	}
	w.IDPrefix = "bench-" + strings.TrimPrefix(id, "run-") + "-"
	w.ResultFile = fmt.Sprintf("%s-worker-%d.json", id, w.Index)
	return w, nil
}

// fromEnv is the setting v, else (not given) the integer in environment
// variable name, if set.
func fromEnv(v int, given bool, flag, name string, getenv func(string) string) (int, error) {
	s := getenv(name)
	if given || s == "" {
		return v, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("$%s=%q: want an integer (it defaults --%s)", name, s, flag)
	}
	return n, nil
}
