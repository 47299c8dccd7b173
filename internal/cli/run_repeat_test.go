package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/stats"
)

// repeatSim is a fixed-mode simulator slow enough (40 ms TTFT, 4 ms ITL)
// that a loaded test machine's scheduling noise is small beside it.
func repeatSim(t *testing.T) *sim.Running {
	return startSim(t, func(c *sim.Config) { c.TTFT = 40 * time.Millisecond; c.ITL = 4 * time.Millisecond })
}

// repeatArgs runs 24 requests of 8 output tokens at concurrency 8.
func repeatArgs(url, dir string, more ...string) []string {
	return append([]string{"run", "--base-url", url, "--model", "llmbench-sim", "--max-concurrency", "8",
		"--num-prompts", "24", "--random-input-len", "8", "--random-output-len", "8", "--disable-tqdm",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json"}, more...)
}

// resultLLMBench reads a saved result and its llmbench object.
func resultLLMBench(t *testing.T, path string) (map[string]any, map[string]any) {
	t.Helper()
	res := readResult(t, path)
	x, _ := res["llmbench"].(map[string]any)
	return res, x
}

// TestRunRepeats: run --runs 3 makes three runs of one plan — warm-ups
// before the first only — each with its own records and result, prints
// vLLM's table once (the last run's) and the section over the runs, and
// saves run_stats equal to stats.Runs of the runs' own results, with
// llmbench.runs holding their figures.
func TestRunRepeats(t *testing.T) {
	t.Parallel()
	srv := repeatSim(t)
	dir := t.TempDir()
	code, out, errs := runCLI(t, repeatArgs(srv.URL, dir, "--runs", "3", "--num-warmups", "2")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if n := len(srv.Server.Truth()); n != 2+3*24 {
		t.Errorf("the server saw %d requests, want 2 warm-ups + 3 x 24", n)
	}
	for _, want := range []string{"run 1 of 3 ...", "run 3 of 3 ...", "24 completed, 0 failed", "result saved to " + filepath.Join(dir, "r-run3.json")} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if n := strings.Count(out, " Serving Benchmark Result "); n != 1 {
		t.Errorf("%d vLLM tables, want the last run's only:\n%s", n, out)
	}
	for _, want := range []string{"vLLM's table below is run 3 of 3", "========= Across 3 runs (95% t interval) =========",
		"Output token throughput (tok/s) ", "P99 TTFT (ms) ", "Result saved to " + filepath.Join(dir, "r.json")} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	var perRun []float64
	for k := 1; k <= 3; k++ {
		res := readResult(t, filepath.Join(dir, fmt.Sprintf("r-run%d.json", k)))
		if res["completed"] != 24.0 {
			t.Errorf("run %d: completed %v", k, res["completed"])
		}
		perRun = append(perRun, res["output_throughput"].(float64))
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("r-run%d.records.jsonl", k))); err != nil {
			t.Errorf("run %d's records: %v", k, err)
		}
	}
	res, x := resultLLMBench(t, filepath.Join(dir, "r.json"))
	if res["output_throughput"] != perRun[2] {
		t.Errorf("the result's vLLM figures are %v, want the last run's %v", res["output_throughput"], perRun[2])
	}
	want, _ := stats.Runs(perRun, 0.95)
	rs, _ := x["run_stats"].(map[string]any)
	ot, _ := rs["output_throughput"].(map[string]any)
	for key, v := range map[string]float64{"n": 3, "mean": want.Mean, "std": want.Std, "se": want.SE, "t_critical": want.TCrit,
		"low": want.Low, "high": want.High, "cv": want.CV} {
		if got, ok := ot[key].(float64); !ok || math.Abs(got-v) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Errorf("run_stats.output_throughput.%s = %v, want %v", key, ot[key], v)
		}
	}
	for _, key := range []string{"mean_ttft_ms", "median_tpot_ms", "p99_itl_ms", "request_throughput", "total_token_throughput"} {
		if _, ok := rs[key]; !ok {
			t.Errorf("run_stats has no %s: %v", key, slices.Sorted(mapKeys(rs)))
		}
	}
	runs, _ := x["runs"].([]any)
	if len(runs) != 3 {
		t.Fatalf("llmbench.runs = %v, want 3 objects", x["runs"])
	}
	for i, r := range runs {
		if got := r.(map[string]any)["output_throughput"]; got != perRun[i] {
			t.Errorf("llmbench.runs[%d].output_throughput = %v, want run %d's %v", i, got, i+1, perRun[i])
		}
	}
	if _, ok := x["convergence"]; ok {
		t.Error("llmbench.convergence with a fixed --runs")
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestRunRepeatsAuto: --runs auto checks from the third run and stops
// there when the deciding intervals are narrow enough (--ci-width 100:
// past any machine's noise, a loaded one's included; the rule itself is
// stats.Converge's, tested there), and
// says so in the table and the saved llmbench.convergence; an
// unreachable width runs to --max-runs and says it did not converge.
func TestRunRepeatsAuto(t *testing.T) {
	t.Parallel()
	srv := repeatSim(t)
	tests := []struct {
		name      string
		args      []string
		runs      int
		converged bool
		line      string
	}{
		{"converges", []string{"--runs", "auto", "--ci-width", "100", "--max-runs", "6"}, 3, true, "Converged after 3 runs (--runs auto)"},
		{"never narrow enough", []string{"--runs", "auto", "--ci-width", "1e-12", "--max-runs", "4"}, 4, false, "NOT converged after 4 runs (--max-runs 4)"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		code, out, errs := runCLI(t, repeatArgs(srv.URL, dir, tt.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", tt.name, code, out, errs)
		}
		if !strings.Contains(out, tt.line) || !strings.Contains(out, fmt.Sprintf(" Across %d runs ", tt.runs)) {
			t.Errorf("%s: stdout lacks %q:\n%s", tt.name, tt.line, out)
		}
		_, x := resultLLMBench(t, filepath.Join(dir, "r.json"))
		raw, _ := json.Marshal(x["convergence"])
		var c stats.Convergence
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		keys := []string{}
		for _, s := range c.Statistics {
			keys = append(keys, s.Key)
		}
		if c.Mode != "auto" || c.Runs != tt.runs || c.Converged != tt.converged ||
			!slices.Equal(keys, []string{"output_throughput", "mean_ttft_ms", "mean_tpot_ms"}) {
			t.Errorf("%s: llmbench.convergence = %s", tt.name, raw)
		}
		if runs, _ := x["runs"].([]any); len(runs) != tt.runs {
			t.Errorf("%s: %d runs saved, want %d", tt.name, len(runs), tt.runs)
		}
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("r-run%d.json", tt.runs+1))); err == nil {
			t.Errorf("%s: a run past the %d-th", tt.name, tt.runs)
		}
	}
}

// TestRunsFlagRefusals: --runs and its companions refuse garbage with a
// one-line usage error (exit 2), on run and on sweep, before anything is
// sent.
func TestRunsFlagRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "x"}, `invalid argument "x" for "--runs" flag: want a whole number of runs >= 1 or auto`},
		{[]string{"--runs", "0"}, `invalid argument "0" for "--runs" flag`},
		{[]string{"--runs", "2.5"}, `invalid argument "2.5" for "--runs" flag`},
		{[]string{"--ci-width", "0.2"}, "--ci-width and --max-runs need --runs auto"},
		{[]string{"--runs", "3", "--max-runs", "5"}, "--ci-width and --max-runs need --runs auto"},
		{[]string{"--runs", "auto", "--max-runs", "2"}, "--max-runs must be at least 3"},
		{[]string{"--runs", "auto", "--ci-width", "0"}, "--ci-width must be positive"},
		{[]string{"--runs", "2", "--worker-count", "2"}, "a distributed run (--worker-count) is one run"},
		{[]string{"--runs", "auto", "--worker-index", "0", "--worker-count", "2", "--step-duration", "2s",
			"--start-at", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, "--runs auto needs the merged data"},
	}
	for _, cmd := range [][]string{{"run"}, {"sweep", "--concurrency", "2"}} {
		for _, tt := range tests {
			switch {
			case cmd[0] == "sweep" && tt.args[1] == "2" && slices.Contains(tt.args, "--worker-count"):
				continue // a sweep's workers repeat each step alike
			case cmd[0] == "run" && slices.Contains(tt.args, "--step-duration"):
				continue
			}
			args := append(append(slices.Clone(cmd), "--base-url", "http://127.0.0.1:1", "--model", "m"), tt.args...)
			code, out, errs := runCLI(t, args...)
			if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line with %q", args, code, out, errs, tt.want)
			}
		}
	}
}

// TestRunRepeatsRecordsFiles: under --runs each run's records go where
// one run's would, with -runK in the name: --save-records PATH gives
// PATH-run1.jsonl and PATH-run2.jsonl; a saved result without
// --save-detailed streams them to a temporary copy per run, removed once
// that run's result is saved.
func TestRunRepeatsRecordsFiles(t *testing.T) {
	t.Parallel()
	srv := repeatSim(t)
	base := []string{"run", "--base-url", srv.URL, "--model", "llmbench-sim", "--max-concurrency", "8", "--num-prompts", "8",
		"--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm", "--runs", "2"}
	for _, tt := range []struct {
		name  string
		args  func(dir string) []string
		files []string
	}{
		{"--save-records", func(dir string) []string { return []string{"--save-records", filepath.Join(dir, "recs.jsonl")} },
			[]string{"recs-run1.jsonl", "recs-run2.jsonl"}},
		{"a result alone", func(dir string) []string {
			return []string{"--save-result", "--result-dir", dir, "--result-filename", "r.json"}
		}, []string{"r-run1.json", "r-run2.json", "r.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errs := runCLI(t, append(slices.Clone(base), tt.args(dir)...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if !slices.Equal(got, tt.files) {
				t.Errorf("files %q, want %q", got, tt.files)
			}
		})
	}
}
