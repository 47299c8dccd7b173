package cli

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
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
	ctx, cancel := context.WithCancel(t.Context())
	var out, errb syncBuf
	var wg sync.WaitGroup
	var code int
	wg.Go(func() {
		code = Main(ctx, "test", []string{"sweep", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
			"--concurrency", "1,2", "--prompts-per-step", "400", "--step-warmup", "0", "--random-input-len", "8",
			"--random-output-len", "20", "--disable-tqdm", "--result-dir", dir}, strings.NewReader(""), &out, &errb)
	})
	for !strings.Contains(errb.String(), "step 1 of 2") {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Second) // about 8 requests of 120 ms each complete
	cancel()
	wg.Wait()
	if code != 130 || strings.Contains(errb.String(), "nothing was measured") {
		t.Errorf("exit %d, want 130 without \"nothing was measured\"\n%s", code, errb.String())
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "concurrency-1.json"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("step 1's partial result: %v %v\n%s", paths, err, errb.String())
	}
	res := readResult(t, paths[0])
	x, _ := res["llmbench"].(map[string]any)
	if n, _ := res["completed"].(float64); n < 1 || x["interrupted"] != true {
		t.Errorf("%s: completed %v, llmbench.interrupted %v; want the requests it finished, marked interrupted", paths[0], res["completed"], x["interrupted"])
	}
	if !strings.Contains(errb.String(), paths[0]) {
		t.Errorf("the output does not name the partial result %s:\n%s", paths[0], errb.String())
	}
}
