package cli

import (
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestConfigHashPinned: the same command gives the same config hash, run
// id, request-id prefix and file name from one version of llmbench to the
// next: a worker's run id and file names derive from the hash
// (docs/distributed.md), and a flag added, renamed or given another
// default changes it for every workload (the values below were taken
// before the hash left cli).
func TestConfigHashPinned(t *testing.T) {
	t.Parallel()
	env := &Env{Getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"run", nil, "0f62c45fb9273171"},
		{"run", []string{"--num-prompts", "7", "--seed", "1", "--header", "a=b", "--goodput", "ttft:5", "--save-result"}, "5e785a17c6a8b73a"},
		{"sweep", []string{"--concurrency", "1,2"}, "08b1c663ef9d7968"},
	} {
		cmd := newRunCmd(env)
		if tc.cmd == "sweep" {
			cmd = newSweepCmd(env)
		}
		if err := cmd.Flags().Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		fs := cmd.Flags()
		asFlags := figures{fs.Lookup("percentile-metrics").Value.String(), fs.Lookup("metric-percentiles").Value.String()}
		if got := configHash(fs, asFlags); got != tc.want {
			t.Errorf("%s %v: config hash %s, want %s", tc.cmd, tc.args, got, tc.want)
		}
	}
	o, err := resolvedWorker(t, nil, "--worker-count", "4", "--worker-index", "1", "--start-at=2026-12-01T15:00:00Z", "--seed", "3")
	want := record.WorkerInfo{RunID: "run-543f9309e5b9", ConfigHash: "4e573e9c6b269fa4", Index: 1, Count: 4, StartAt: "2026-12-01T15:00:00Z"}
	if err != nil || *o.w.info != want || o.w.r.IDPrefix != "bench-543f9309e5b9-" || o.w.r.ResultFile != "run-543f9309e5b9-worker-1.json" {
		t.Errorf("worker %+v, prefix %q, file %q (%v); want %+v", o.w.info, o.w.r.IDPrefix, o.w.r.ResultFile, err, want)
	}
}

// TestSweepWorkerHashPinned: a sweep worker's config hash, taken after
// the sweep's checks as a real sweep takes it, is the same from one
// version to the next; with --sla the percentile figures the SLA needs
// (sweep.ResultFigures) are part of it (the values below were taken
// while checkSweep still wrote them into run's flags).
func TestSweepWorkerHashPinned(t *testing.T) {
	t.Parallel()
	env := &Env{Getenv: func(string) string { return "" }}
	worker := []string{"--no-config", "--worker-count", "2", "--worker-index", "1", "--start-at=2026-12-01T15:00:00Z"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "1,2"}, "7db7134e8c282f84"},
		{[]string{"--concurrency", "1,2", "--sla", "p99_ttft_ms<500,p90_itl_ms<30"}, "25f150f2091284ea"},
		{[]string{"--concurrency", "1,2", "--sla", "p99_ttft_ms<500", "--metric-percentiles", "50"}, "764dc858f5d39664"},
	} {
		cmd, o := sweepCommand(env)
		if err := cmd.Flags().Parse(append(append([]string{}, worker...), tc.args...)); err != nil {
			t.Fatal(err)
		}
		o.sweepLoop = o.ladders.Loop()
		if _, err := o.resolveConfig(cmd, nil, env); err != nil {
			t.Fatal(err)
		}
		if err := o.checkSweep(cmd); err != nil {
			t.Fatal(err)
		}
		if err := o.resolveWorker(cmd, env); err != nil {
			t.Fatal(err)
		}
		if got := o.w.info.ConfigHash; got != tc.want {
			t.Errorf("sweep %v: config hash %s, want %s", tc.args, got, tc.want)
		}
	}
}
