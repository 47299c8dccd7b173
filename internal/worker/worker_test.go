package worker

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestResolve: the index and count come from the settings, else the
// environment; a worker's run id, prefix and file name follow from the
// hash, the seed and the start; wrong settings are refused with the
// setting's name.
func TestResolve(t *testing.T) {
	t.Parallel()
	k8s := map[string]string{EnvIndex: "2", EnvCount: "4"}
	at := "2026-12-01T15:00:00Z"
	for _, tc := range []struct {
		name string
		s    Settings
		env  map[string]string
		want Worker
		err  string
	}{
		{name: "single process", want: Worker{}},
		{name: "single process starting later", s: Settings{StartAt: at}, want: Worker{At: time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)}},
		{name: "an index without a count is one process", env: map[string]string{EnvIndex: "3"}, want: Worker{Index: 3}},
		{name: "from the environment", s: Settings{StartAt: at}, env: k8s, want: Worker{Index: 2, Count: 4,
			Info: &record.WorkerInfo{RunID: "run-90aca4e5c49a", ConfigHash: "h", Index: 2, Count: 4, StartAt: at},
			At:   time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC), IDPrefix: "bench-90aca4e5c49a-", ResultFile: "run-90aca4e5c49a-worker-2.json"}},
		{name: "settings over the environment", s: Settings{Index: 0, IndexGiven: true, RunID: "run-x"}, env: k8s, want: Worker{Index: 0, Count: 4,
			Info: &record.WorkerInfo{RunID: "run-x", ConfigHash: "h", Index: 0, Count: 4}, IDPrefix: "bench-x-", ResultFile: "run-x-worker-0.json"}},
		{name: "index past the count", s: Settings{Index: 4, Count: 4, IndexGiven: true, CountGiven: true}, err: "--worker-index 4 --worker-count 4: want 0 <= index < count"},
		{name: "a start that is not RFC 3339", s: Settings{Count: 2, CountGiven: true, StartAt: "15:00"}, err: `--start-at "15:00": want an RFC 3339 instant`},
		{name: "a run id without workers", s: Settings{RunID: "x"}, err: "--run-id and --worker-index need --worker-count (or $LLMBENCH_WORKER_COUNT)"},
		{name: "a count that is not a number", env: map[string]string{EnvCount: "four"}, err: `$LLMBENCH_WORKER_COUNT="four": want an integer (it defaults --worker-count)`},
		{name: "a run id with a separator", s: Settings{Count: 2, CountGiven: true, RunID: "a/b"}, err: `--run-id "a/b": must not contain a path separator`},
	} {
		got, err := Resolve(tc.s, env(tc.env), "h", 0)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.Index != tc.want.Index || got.Count != tc.want.Count || !got.At.Equal(tc.want.At) ||
			got.IDPrefix != tc.want.IDPrefix || got.ResultFile != tc.want.ResultFile || (got.Info == nil) != (tc.want.Info == nil) ||
			(got.Info != nil && *got.Info != *tc.want.Info) {
			t.Errorf("%s: %+v (info %+v, %v), want %+v (info %+v)", tc.name, got, got.Info, err, tc.want, tc.want.Info)
		}
	}
}

// TestRunIDDependsOnWorkloadSeedAndStart: the derived run id changes with
// the config hash, the seed and the start instant, and with nothing else.
func TestRunIDDependsOnWorkloadSeedAndStart(t *testing.T) {
	t.Parallel()
	id := func(hash string, seed int64, at string) string {
		w, err := Resolve(Settings{Count: 2, CountGiven: true, StartAt: at}, env(nil), hash, seed)
		if err != nil {
			t.Fatal(err)
		}
		return w.Info.RunID
	}
	base := id("h", 0, "")
	if again := id("h", 0, ""); again != base {
		t.Errorf("same inputs, run ids %s and %s", base, again)
	}
	for _, other := range []string{id("g", 0, ""), id("h", 1, ""), id("h", 0, "2026-12-01T15:00:00Z")} {
		if other == base {
			t.Errorf("run id %s for another workload, seed or start", other)
		}
	}
}

// TestConfigHash: the hash of fixed settings is pinned (the value is
// sha256sum of "backend=openai\nnum-prompts=1000\nseed=0\n"; docs/distributed.md:
// workers of two builds of one release must merge), and the excluded
// settings do not enter it.
func TestConfigHash(t *testing.T) {
	t.Parallel()
	hash := func(m map[string]string) string {
		return ConfigHash(func(yield func(string, string) bool) {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if !yield(k, m[k]) {
					return
				}
			}
		})
	}
	workload := map[string]string{"backend": "openai", "num-prompts": "1000", "seed": "0"}
	if got, want := hash(workload), "0eba7adde9e49963"; got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	output := maps.Clone(workload)
	output["save-result"], output["result-dir"], output["worker-index"], output["max-error-rate"] = "true", "a", "3", "0.1"
	if hash(output) != hash(workload) {
		t.Errorf("output settings changed the hash")
	}
	workload["seed"] = "1"
	if hash(workload) == hash(output) {
		t.Errorf("another seed kept the hash")
	}
}

// TestShare: a worker's share carries its start instant and says what
// it sends; a single process keeps its plan; a plan too small to split
// is refused.
func TestShare(t *testing.T) {
	t.Parallel()
	plan := func(n int) *bench.Plan {
		p := &bench.Plan{Load: bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}}}
		for i := range n {
			p.Requests = append(p.Requests, backend.Request{Index: i})
		}
		return p
	}
	at := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	single := Worker{At: at}
	var notes bytes.Buffer
	if q, err := single.Share(plan(3), &notes); err != nil || len(q.Requests) != 3 || !q.StartAt.Equal(at) || notes.Len() != 0 {
		t.Errorf("single process: %d requests at %v, notes %q, %v", len(q.Requests), q.StartAt, notes.String(), err)
	}
	w, err := Resolve(Settings{Index: 1, Count: 2, IndexGiven: true, CountGiven: true, RunID: "run-r"}, env(nil), "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	q, err := w.Share(plan(5), &notes)
	want := "Worker 1 of 2, run run-r (config c): 2 of 5 requests.\nNote: no --start-at: the workers start when they are ready, not together (docs/distributed.md).\n"
	if err != nil || len(q.Requests) != 2 || notes.String() != want {
		t.Errorf("share: %v, notes %q, want %q", err, notes.String(), want)
	}
	if _, err := w.Share(plan(1), &notes); err == nil {
		t.Errorf("one request split across two workers: accepted")
	}
	clock := &record.ClockSync{Source: "adjtimex", Synced: true}
	if h := w.HeaderInfo(func() *record.ClockSync { return clock }); h == nil || h.RunID != "run-r" || h.Clock != clock || w.Info.Clock != nil {
		t.Errorf("header %+v; want the clock read now, and the resolved block left without one", h)
	}
	if single.HeaderInfo(func() *record.ClockSync { return clock }) != nil {
		t.Errorf("a single process has a worker block")
	}
}
