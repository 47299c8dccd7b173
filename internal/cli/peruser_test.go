package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
)

// TestRunPerUserViewAndTokenGoodput: against a fixed-ITL simulator that
// stops some streams at EOS and fails some requests, per-user TPS is the
// server's own token rate per stream (about 1/ITL), and token goodput
// counts exactly the tokens of requests that succeeded and stopped
// naturally — length-truncated and failed ones excluded — as the
// simulator's ground truth says.
func TestRunPerUserViewAndTokenGoodput(t *testing.T) {
	t.Parallel()
	const itl = 20 * time.Millisecond
	srv := startSim(t, func(c *sim.Config) {
		c.ITL = itl
		c.EOSRate = 0.05
		c.Faults.HTTP500Rate = 0.15
		c.Seed = 5
	})
	dir := t.TempDir()
	var lines strings.Builder
	for i := range 24 {
		fmt.Fprintf(&lines, `{"prompt": "question number %d about streaming", "output_tokens": 30}`+"\n", i)
	}
	data := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(data, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--dataset-name", "custom",
		"--dataset-path", data, "--custom-output-len", "-1", "--num-prompts", "24", "--max-concurrency", "8",
		"--tokenizer", "builtin:gpt2", "--request-id-prefix", "pu-", "--save-result", "--result-dir", dir,
		"--result-filename", "r.json", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	x, _ := readResult(t, filepath.Join(dir, "r.json"))["llmbench"].(map[string]any)
	var stopTokens, stopped, truncated, failed int
	for _, tr := range srv.Server.Truth() {
		if !strings.HasPrefix(tr.RequestID, "pu-") {
			continue
		}
		switch {
		case tr.Status != 200:
			failed++
		case tr.FinishReason == "stop":
			stopped++
			stopTokens += tr.CompletionTokens
		default:
			truncated++
		}
	}
	if stopped == 0 || truncated == 0 || failed == 0 {
		t.Fatalf("the simulator's seed gave %d stopped, %d truncated, %d failed: want some of each", stopped, truncated, failed)
	}
	if got := x["token_goodput_tokens"]; got != float64(stopTokens) || x["token_goodput_requests"] != float64(stopped) {
		t.Errorf("token goodput counted %v tokens of %v requests; the server stopped %d requests naturally with %d tokens",
			got, x["token_goodput_requests"], stopped, stopTokens)
	}
	// 30 tokens at 20 ms: (30-1) gaps, so 30/(29*0.02) = 51.7 tok/s per
	// user; a loaded machine only stretches the gaps (lower TPS).
	want := 1 / itl.Seconds()
	if m := x["median_per_user_tps"].(float64); m < 0.6*want || m > 1.15*want {
		t.Errorf("median per-user TPS %.1f, want about %.0f (1/ITL)", m, want)
	}
}
