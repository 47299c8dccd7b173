package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/merge"
	"github.com/llmbench/llmbench/internal/sim"
)

// TestMergeSweepTwoWorkers runs 2 worker processes of one sweep
// (concurrency 2 then 4, on the clock schedule) against one simulator,
// merges their sweeps, and checks (docs/distributed.md, "Sweeps"):
//   - each worker kept every step's records, with its share of the users;
//   - each merged step equals, key by key and digit by digit, `llmbench
//     metrics` over that step's records of both workers concatenated onto
//     the earliest worker's clock, and its request count is the sum of
//     the workers';
//   - the merged sweep has both steps, the analysis and the merged run's
//     worker block.
//
// The refusals are then checked on copies of these sweeps.
func TestMergeSweepTwoWorkers(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) {
		c.TTFT = 10 * time.Millisecond
		c.ITL = 2 * time.Millisecond
	})
	dir := t.TempDir()
	const workers = 2
	runSweepWorkers(t, dir, srv.URL, workers, time.Now().Add(4*time.Second).UTC().Truncate(time.Millisecond))

	checkWorkerShares(t, dir, workers)
	merged := filepath.Join(dir, "merged", "sweep-merged.json")
	// A worker's sweep file named besides its folder is one worker.
	sweep0, _ := filepath.Glob(filepath.Join(dir, "sweep-*-worker-0.json"))
	code, out, errs := runCLI(t, append([]string{"merge", dir, "-o", merged}, sweep0...)...)
	if code != 0 || len(sweep0) != 1 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	var an capacity.Sweep
	if b, err := os.ReadFile(merged); err != nil || json.Unmarshal(b, &an) != nil {
		t.Fatalf("merged sweep %s: %v", merged, err)
	}
	if an.Worker == nil || !an.Worker.Merged || an.Worker.Count != workers || an.Verdict == "" || an.LoadKind != capacity.Concurrency {
		t.Fatalf("merged sweep: worker %+v, kind %s, verdict %q", an.Worker, an.LoadKind, an.Verdict)
	}
	if !strings.Contains(out, "Verdict: ") {
		t.Errorf("merge printed no verdict:\n%s", out)
	}
	if got := []float64{an.Steps[0].Load, an.Steps[len(an.Steps)-1].Load}; len(an.Steps) != 2 || got[0] != 2 || got[1] != 4 {
		t.Fatalf("merged steps %+v, want loads 2 and 4", an.Steps)
	}
	for _, row := range an.Steps {
		name := "concurrency-" + strconv.Itoa(int(row.Load))
		checkMergedStep(t, dir, name, row, workers)
	}
	t.Run("refusals", func(t *testing.T) { checkSweepRefusals(t, dir) })
}

// checkWorkerShares: each worker's own sweep names the whole step's load
// and the share of its users it ran (its Little's-law check scales by it:
// TestLittlesLaw).
func checkWorkerShares(t *testing.T, dir string, workers int) {
	t.Helper()
	for i := range workers {
		files, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("sweep-*-worker-%d.json", i)))
		var sw capacity.Sweep
		if len(files) != 1 {
			t.Fatalf("worker %d: sweep files %v", i, files)
		}
		if b, err := os.ReadFile(files[0]); err != nil || json.Unmarshal(b, &sw) != nil {
			t.Fatalf("worker %d: %s: %v", i, files[0], err)
		}
		for _, row := range sw.Steps {
			users := (int(row.Load) - i + workers - 1) / workers
			if want := float64(users) / row.Load; row.Share != want {
				t.Errorf("worker %d, load %v: share %v, want %v", i, row.Load, row.Share, want)
			}
		}
	}
}

// runSweepWorkers starts the sweep's worker processes (the test binary
// as llmbench) and waits for all of them.
func runSweepWorkers(t *testing.T, dir, url string, workers int, startAt time.Time) {
	t.Helper()
	// A 1 s gap covers the drain of 10-40 ms requests and one warm-up on
	// an idle machine; a busy one may start a step late, which the worker
	// reports and this test does not treat as a failure.
	runWorkerProcs(t, workers, func(i int) []string {
		return []string{"sweep", "--base-url", url, "--model", "llmbench-sim",
			"--tokenizer", "builtin:gpt2", "--seed", "7", "--num-prompts", "40", "--concurrency", "2,4",
			"--step-duration", "1s", "--step-gap", "1s", "--step-warmup", "1",
			"--random-input-len", "24", "--random-output-len", "12",
			"--worker-index", strconv.Itoa(i), "--start-at", startAt.Format(time.RFC3339Nano),
			"--result-dir", dir, "--disable-tqdm"}
	})
}

// checkMergedStep compares one merged step with `llmbench metrics` over
// the workers' records of that step, concatenated here.
func checkMergedStep(t *testing.T, dir, name string, row capacity.Row, workers int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "sweep-*-worker-*", name+".records.jsonl"))
	if len(files) != workers {
		t.Fatalf("%s: records files %v, want one per worker", name, files)
	}
	concat, total := unionOnEarliest(t, files, int(row.Load))
	code, want, errs := runCLI(t, "metrics", concat, "--format", "json")
	if code != 0 {
		t.Fatalf("metrics: exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(row.ResultFile)
	if err != nil {
		t.Fatalf("%s: merged step result: %v", name, err)
	}
	gotKeys, gotVals := rawKeys(t, got)
	wantKeys, wantVals := rawKeys(t, []byte(want))
	gotKeys = slices.DeleteFunc(gotKeys, func(k string) bool { return k == "llmbench_merge" })
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("%s: keys differ:\nmerge   %v\nmetrics %v", name, gotKeys, wantKeys)
	}
	for _, k := range wantKeys {
		if !bytes.Equal(gotVals[k], wantVals[k]) {
			t.Errorf("%s: %s: merge %s, metrics %s", name, k, clip(gotVals[k]), clip(wantVals[k]))
		}
	}
	if row.Completed+row.Failed != total || total == 0 {
		t.Errorf("%s: merged row has %d completed + %d failed, the workers sent %d", name, row.Completed, row.Failed, total)
	}
	var p99 float64
	if json.Unmarshal(wantVals["p99_ttft_ms"], &p99) != nil || row.P99TTFTMs != p99 {
		t.Errorf("%s: merged row p99 TTFT %v, metrics %s", name, row.P99TTFTMs, wantVals["p99_ttft_ms"])
	}
}

// unionOnEarliest checks each worker's share of a step (its users are
// the global ids of its residue class, at least one each) and writes the
// union of the records onto the earliest worker's clock; it returns the
// file and the number of records.
func unionOnEarliest(t *testing.T, files []string, users int) (string, int) {
	t.Helper()
	ws := readWorkerFiles(t, files)
	for i, w := range ws {
		h := w.h
		seen := map[int]bool{}
		for _, r := range w.recs {
			if r.Worker != h.Worker.Index+1 || r.User == 0 || (r.User-1)%h.Worker.Count != h.Worker.Index {
				t.Fatalf("%s: record %d of worker %d has worker %d, user %v", files[i], r.Index, h.Worker.Index, r.Worker, r.User)
			}
			seen[r.User] = true
		}
		if want := (users - h.Worker.Index + h.Worker.Count - 1) / h.Worker.Count; len(seen) != want {
			t.Errorf("%s: worker %d ran %d users of %d, want %d", files[i], h.Worker.Index, len(seen), users, want)
		}
	}
	path, all := writeUnion(t, ws, t.TempDir())
	return path, len(all)
}

// checkSweepRefusals: sweeps that are not one complete run, step by
// step, are refused with one line on stderr and exit code 2. Each case
// changes a copy of the workers' sweeps in dir.
func checkSweepRefusals(t *testing.T, dir string) {
	sweeps, _ := filepath.Glob(filepath.Join(dir, merge.SweepWorkerGlob))
	slices.Sort(sweeps)
	if len(sweeps) != 2 {
		t.Fatalf("worker sweeps %v", sweeps)
	}
	for _, c := range []struct {
		name   string
		change func(t *testing.T, d string) []string // returns merge's arguments
		want   string
	}{
		{"a worker is missing: its share is not in the figures", func(t *testing.T, d string) []string {
			return []string{filepath.Join(d, filepath.Base(sweeps[0]))}
		}, "worker 1 of 0..1 missing"},
		{"a step is missing in one worker: that step lacks a share", func(t *testing.T, d string) []string {
			rm(t, filepath.Join(merge.StepDir(filepath.Join(d, filepath.Base(sweeps[1]))), "concurrency-4.records.jsonl"))
			return []string{d}
		}, "step concurrency-4 is missing from worker 1"},
		{"different runs: their steps did not start together", func(t *testing.T, d string) []string {
			editSweep(t, filepath.Join(d, filepath.Base(sweeps[1])), func(m map[string]any) { m["worker"].(map[string]any)["run_id"] = "run-other" })
			return []string{d}
		}, "results from different runs"},
		{"different ladders: the steps do not match", func(t *testing.T, d string) []string {
			editSweep(t, filepath.Join(d, filepath.Base(sweeps[1])), func(m map[string]any) { m["steps"] = m["steps"].([]any)[:1] })
			return []string{d}
		}, "swept different ladders"},
		{"no records: a summary cannot be merged", func(t *testing.T, d string) []string {
			for _, s := range sweeps {
				files, _ := filepath.Glob(filepath.Join(merge.StepDir(filepath.Join(d, filepath.Base(s))), "*.records.jsonl"))
				for _, f := range files {
					rm(t, f)
				}
			}
			return []string{d}
		}, "no step records"},
		{"a single-process sweep has no run id", func(t *testing.T, d string) []string {
			for _, s := range sweeps {
				editSweep(t, filepath.Join(d, filepath.Base(s)), func(m map[string]any) { delete(m, "worker") })
			}
			return []string{d}
		}, "is not a worker's sweep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			code, _, errs := runCLI(t, append([]string{"merge"}, c.change(t, d)...)...)
			if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q: want 2 and one line with %q", code, errs, c.want)
			}
		})
	}
}

func rm(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// editSweep rewrites a sweep file through change.
func editSweep(t *testing.T, path string, change func(map[string]any)) {
	t.Helper()
	m := readResult(t, path)
	change(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSweepWorkerUsage: what the clock schedule and worker mode cannot
// do is refused before any request, with one line and exit code 2.
func TestSweepWorkerUsage(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	worker := []string{"--worker-index", "0", "--worker-count", "2"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"workers agree on steps only by the clock", append([]string{"--step-duration", "2s"}, worker...), "needs --start-at"},
		{"the schedule needs a step length", append([]string{"--start-at", at}, worker...), "needs --step-duration"},
		{"refine needs the merged analysis", append([]string{"--start-at", at, "--step-duration", "2s", "--refine", "2"}, worker...), "run llmbench merge"},
		{"stopping needs the merged analysis", append([]string{"--start-at", at, "--step-duration", "2s", "--stop-when-saturated"}, worker...), "run llmbench merge"},
		{"a load smaller than the workers cannot be split", append([]string{"--start-at", at, "--step-duration", "2s", "--concurrency", "1,2"}, worker...), "--concurrency 1 cannot be split across 2 workers"},
		{"a gap without a schedule means nothing", []string{"--step-gap", "5s"}, "--step-gap needs --start-at"},
		{"a negative gap", []string{"--step-gap", "-1s", "--start-at", at, "--step-duration", "2s"}, "--step-gap must not be negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"sweep", "--base-url", "http://127.0.0.1:1", "--model", "m", "--result-dir", t.TempDir()}
			if !slices.Contains(c.args, "--concurrency") {
				args = append(args, "--concurrency", "2,4")
			}
			code, _, errs := runCLI(t, append(args, c.args...)...)
			if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q: want 2 and one line with %q", code, errs, c.want)
			}
		})
	}
}
