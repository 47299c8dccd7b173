package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
)

// TestSweepInterruptFirstStep: Ctrl-C in the first step of a sweep, once
// requests have completed, keeps what was measured: the step's partial
// result, marked interrupted, is saved under its name and the exit
// message names it (exit 130); never "nothing was measured".
func TestSweepInterruptFirstStep(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) { c.ITL = 5 * time.Millisecond })
	dir := t.TempDir()
	// After a second, about 8 requests of 120 ms each have completed.
	code, _, errb := interruptedSweep(t, "step 1 of 2", time.Second, "--base-url", srv.URL, "--model", "llmbench-sim",
		"--tokenizer", "builtin:gpt2", "--concurrency", "1,2", "--prompts-per-step", "400", "--step-warmup", "0",
		"--random-input-len", "8", "--random-output-len", "20", "--disable-tqdm", "--result-dir", dir)
	if code != 130 || strings.Contains(errb, "nothing was measured") {
		t.Errorf("exit %d, want 130 without \"nothing was measured\"\n%s", code, errb)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "concurrency-1.json"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("step 1's partial result: %v %v\n%s", paths, err, errb)
	}
	res := readResult(t, paths[0])
	x, _ := res["llmbench"].(map[string]any)
	if n, _ := res["completed"].(float64); n < 1 || x["interrupted"] != true {
		t.Errorf("%s: completed %v, llmbench.interrupted %v; want the requests it finished, marked interrupted", paths[0], res["completed"], x["interrupted"])
	}
	if !strings.Contains(errb, paths[0]) {
		t.Errorf("the output does not name the partial result %s:\n%s", paths[0], errb)
	}
}
