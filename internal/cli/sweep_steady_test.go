package cli

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/sim"
)

// stepResult reads a step's saved result: its whole-run output
// throughput and its steady_state object.
func stepResult(t *testing.T, path string) (float64, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		OutputThroughput float64        `json:"output_throughput"`
		SteadyState      map[string]any `json:"steady_state"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res.OutputThroughput, res.SteadyState
}

// TestSweepSteadyThroughput: a closed-loop step's row takes its
// throughputs from the step's steady_state window. 28 requests at
// concurrency 8 against a fixed-latency server run in four waves of 8,
// 8, 8 and 4: the window holds the first three, and the last wave at half
// the concurrency dilutes the whole-run figure by about an eighth. The
// row says so (throughput_from, the window, the whole run's figure),
// the text says so, and an open-loop step keeps its whole-run figure.
func TestSweepSteadyThroughput(t *testing.T) {
	t.Parallel()
	// Requests of ~0.3 s and four waves: with three waves of ~70 ms
	// requests (20 prompts) the window held 9 or 10 of the 20 completions
	// depending on how a loaded machine ordered a wave's ends and starts,
	// on the edge of the half a step needs to use its window
	// (docs/confidence.md), and the step fell back to the whole run.
	srv := startSim(t, func(c *sim.Config) { c.TTFT = 200 * time.Millisecond; c.ITL = 12 * time.Millisecond })
	dir := t.TempDir()
	code, out, errs := runChild(t, "sweep", "--base-url", srv.URL, "--model", "llmbench-sim", "--concurrency", "8",
		"--prompts-per-step", "28", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "8",
		"--num-prompts", "28", "--result-dir", dir, "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := readSweep(t, dir).Steps[0]
	whole, ss := stepResult(t, r.ResultFile)
	steady, _ := ss["output_throughput"].(float64)
	window, _ := ss["window"].(map[string]any)
	if r.ThroughputFrom != capacity.ThroughputSteady || r.SteadyWindowS == nil || *r.SteadyWindowS != window["duration_s"] {
		t.Fatalf("row: throughput_from %q, window %v; want steady_state over the step's window %v", r.ThroughputFrom, r.SteadyWindowS, window)
	}
	if r.OutputThroughput != steady || r.Metrics["output_throughput"] != steady || r.RunThroughput["output_throughput"] != whole {
		t.Errorf("row: %v out tok/s (whole run %v); want the steady %v, the whole run's %v beside it", r.OutputThroughput, r.RunThroughput["output_throughput"], steady, whole)
	}
	if d := steady/whole - 1; d < 0.08 || math.IsNaN(d) {
		t.Errorf("steady %v against whole run %v (%+.1f %%): want the drain's dilution, about +20 %%", steady, whole, 100*d)
	}
	for _, want := range []string{"Note: throughput over each step's steady window (vLLM's steady_state); ramp and drain excluded", "steady window; whole run "} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, out, errs)
		}
	}

	dir = t.TempDir()
	code, out, errs = runChild(t, "sweep", "--base-url", srv.URL, "--model", "llmbench-sim", "--request-rates", "100",
		"--prompts-per-step", "20", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "8",
		"--num-prompts", "20", "--result-dir", dir, "--disable-tqdm")
	if code != 0 {
		t.Fatalf("open loop: exit %d\n%s\n%s", code, out, errs)
	}
	r = readSweep(t, dir).Steps[0]
	if whole, ss := stepResult(t, r.ResultFile); r.ThroughputFrom != "" || r.OutputThroughput != whole || ss != nil {
		t.Errorf("open loop: throughput_from %q, %v out tok/s, steady_state %v; want none, the whole run's %v, null", r.ThroughputFrom, r.OutputThroughput, ss, whole)
	}
}

// TestSweepRunsAuto: sweep --runs auto repeats each step until its
// deciding figures converge (here at the third run: --ci-width 100 is
// past any machine's noise, a loaded one's included; the rule itself is
// stats.Converge's, tested there), saves the record in the row and in every run's
// result, and the notes say how many runs each step took.
func TestSweepRunsAuto(t *testing.T) {
	t.Parallel()
	srv := repeatSim(t)
	dir := t.TempDir()
	code, out, errs := runChild(t, "sweep", "--base-url", srv.URL, "--model", "llmbench-sim", "--concurrency", "2,4",
		"--runs", "auto", "--ci-width", "100", "--max-runs", "5", "--sla", "mean_ttft_ms<500",
		"--prompts-per-step", "16", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "8",
		"--num-prompts", "16", "--result-dir", dir, "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"Plan: at most 10 steps (concurrency 2, 4, 3 to 5 runs each until the 95% intervals of mean_ttft_ms are within 10000 % of their means)",
		"step 3 of at most 10: concurrency 2 (run 3 of at most 5, --runs auto)", "(converged after 3 runs: mean_ttft_ms ",
		"step 4 of at most 8: concurrency 4 (run 1 of at most 5, --runs auto)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "Note: --runs auto (--ci-width 100): runs per concurrency: 2 3, 4 3") {
		t.Errorf("stdout lacks the runs note:\n%s", out)
	}
	s := readSweep(t, dir)
	for _, r := range s.Steps {
		c := r.Convergence
		if r.Runs != 3 || c == nil || !c.Converged || c.Runs != 3 || len(c.Statistics) != 1 || c.Statistics[0].Key != "mean_ttft_ms" {
			t.Errorf("load %v: %d runs, convergence %+v", r.Load, r.Runs, c)
		}
		for _, f := range strings.Fields(r.ResultFile) {
			var res struct {
				Llmbench struct {
					Runs        []map[string]float64 `json:"runs"`
					Convergence *struct {
						Runs      int  `json:"runs"`
						Converged bool `json:"converged"`
					} `json:"convergence"`
				} `json:"llmbench"`
			}
			b, err := os.ReadFile(f)
			if err == nil {
				err = json.Unmarshal(b, &res)
			}
			if x := res.Llmbench; err != nil || len(x.Runs) != 3 || x.Convergence == nil || x.Convergence.Runs != 3 || !x.Convergence.Converged {
				t.Errorf("%s: %d runs in llmbench.runs, convergence %+v (%v); want 3 and 3 converged", f, len(x.Runs), x.Convergence, err)
			}
		}
	}
}
