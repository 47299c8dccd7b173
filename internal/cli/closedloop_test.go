package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/sim"
)

// slowSim is a simulator whose requests last ~170 ms (20 ms to the first
// of 30 tokens, 5 ms apart): long enough that every user of a small
// closed loop is in flight at once.
func slowSim(t *testing.T) *sim.Running {
	return startSim(t, func(c *sim.Config) {
		c.TTFT = 20 * time.Millisecond
		c.ITL = 5 * time.Millisecond
	})
}

// writeConfig writes a config.yaml with the given benchmark: lines into
// a new folder and returns it.
func writeConfig(t *testing.T, lines ...string) string {
	t.Helper()
	dir := t.TempDir()
	body := "benchmark:\n  " + strings.Join(lines, "\n  ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunUsersIgnoresConfigCap: in a folder whose config.yaml says
// max_concurrency: 4, run --users 16 keeps 16 requests in flight on the
// server (issue 29: the config's cap sized the connection pool, so 12
// users waited in the client, the wait counted as TTFT and the table
// said 16), and says once that the file's cap does not apply.
func TestRunUsersIgnoresConfigCap(t *testing.T) {
	t.Parallel()
	srv := slowSim(t)
	dir := writeConfig(t, "max_concurrency: 4", "input_len: 8", "output_len: 30", "save_results: false")
	code, out, errs := runChildIn(t, dir, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--users", "16", "--duration", "2s", "--request-id-prefix", "cl-", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if peak := peakInFlight(srv, "cl-"); peak != 16 {
		t.Errorf("the server saw at most %d requests in flight, want the 16 users'", peak)
	}
	note := "max_concurrency 4 from the config file does not apply to --users 16"
	if n := strings.Count(errs, note); n != 1 {
		t.Errorf("the note %q is written %d times, want once:\n%s", note, n, errs)
	}
	if !strings.Contains(out, "Self-check: valid") && !strings.Contains(out, "Self-check: degraded") {
		t.Errorf("self-check not valid:\n%s", out)
	}
}

// TestSweepRefusesCapOnClosedLadder: a cap given beside a closed-loop
// ladder would measure the cap under each step's name (issue 29: sweep
// --concurrency 8 --max-concurrency 2 reported concurrency 2 as row 8).
func TestSweepRefusesCapOnClosedLadder(t *testing.T) {
	t.Parallel()
	for _, ladder := range [][]string{{"--concurrency", "8"}, {"--users", "8"}} {
		args := append([]string{"sweep", "--base-url", "http://127.0.0.1:9", "--model", "m", "--max-concurrency", "2", "--no-config"}, ladder...)
		code, out, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "--max-concurrency 2 would hold it at 2") {
			t.Errorf("%v: exit %d, want 2 and the conflict named\n%s\n%s", ladder, code, out, errs)
		}
	}
}

// TestSweepUsersThinkTime runs the sweep help's users example, small:
// --users with --think-time was always refused ("--think-time needs
// --users", the run-only check reading run's integer --users as 0).
func TestSweepUsersThinkTime(t *testing.T) {
	t.Parallel()
	srv := slowSim(t)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "sweep", "--no-config", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--users", "4,8", "--think-time", "100ms-200ms", "--step-duration", "1s", "--step-warmup", "0",
		"--random-input-len", "8", "--random-output-len", "30", "--result-dir", dir, "--num-prompts", "16")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	s := readSweep(t, dir)
	if s.LoadKind != capacity.Users || len(s.Steps) != 2 {
		t.Fatalf("sweep of %s with %d steps, want users with 2", s.LoadKind, len(s.Steps))
	}
	for _, r := range s.Steps {
		if r.Completed == 0 || r.MeanThinkS != 0.15 {
			t.Errorf("users %v: %d completed, mean think %v s, want some and 0.15", r.Load, r.Completed, r.MeanThinkS)
		}
	}
}

// TestSweepReadsConfig: sweep reads the same config layers as run
// (issue 29: run and sweep in one folder used different workloads): the
// file's output length is every step's, its cap does not squeeze the
// concurrency ladder, and its run-only keys are named as left out.
func TestSweepReadsConfig(t *testing.T) {
	t.Parallel()
	srv := slowSim(t)
	dir := writeConfig(t, "max_concurrency: 2", "input_len: 8", "output_len: 7", "users: 20", "save_results: false")
	res := filepath.Join(dir, "res")
	code, out, errs := runChildIn(t, dir, "sweep", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--concurrency", "4", "--prompts-per-step", "16", "--step-warmup", "0", "--result-dir", res, "--request-id-prefix", "sc-")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"Using config.yaml", "max_concurrency 2 from the config file does not apply to sweep --concurrency", "users in config.yaml"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	s := readSweep(t, res)
	step := readResult(t, s.Steps[0].ResultFile)
	if got := num(t, step, "total_output_tokens") / num(t, step, "completed"); got != 7 {
		t.Errorf("%v output tokens per request, want the file's 7", got)
	}
	if peak := peakInFlight(srv, "sc-"); peak != 4 {
		t.Errorf("the server saw at most %d requests in flight, want the step's 4", peak)
	}
}

// TestRunUsersSaysItWasOne: a --users run says so in its header, its
// saved result (llmbench.closed_loop; num_prompts = the requests sent)
// and its file name (issue 29: "Traffic request rate: inf", "Poisson
// process", no users in the JSON, num_prompts 20 of 174 sent, a file
// named concurrency20).
func TestRunUsersSaysItWasOne(t *testing.T) {
	t.Parallel()
	srv := slowSim(t)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "run", "--no-config", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--users", "4", "--think-time", "50ms-100ms", "--duration", "1s", "--num-prompts", "5", "--random-input-len", "8",
		"--random-output-len", "10", "--save-result", "--result-dir", dir, "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "Closed loop: 4 users, think time 50ms-100ms, all started at once, for 1s\n") ||
		strings.Contains(out, "Traffic request rate") || strings.Contains(out, "Burstiness factor") {
		t.Errorf("header does not describe the closed loop:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "openai-users4-llmbench-sim-*.json"))
	if len(files) != 1 {
		all, _ := filepath.Glob(filepath.Join(dir, "*"))
		t.Fatalf("result files %v, want one named after the users", all)
	}
	res := readResult(t, files[0])
	cl, _ := res["llmbench"].(map[string]any)["closed_loop"].(map[string]any)
	if cl["users"] != 4.0 || cl["think_time"] != "50ms-100ms" || cl["duration_s"] != 1.0 || cl["spawn_rate"] != 0.0 {
		t.Errorf("llmbench.closed_loop = %v", cl)
	}
	sent := num(t, res, "completed") + num(t, res, "failed")
	if np := num(t, res, "num_prompts"); np != sent || np <= 5 {
		t.Errorf("num_prompts %v, want the %v requests sent (more than the dataset's 5)", np, sent)
	}
}

// TestDemoUsersNotCapped: demo's default cap of 4 does not hold a
// --users loop: the connection pool was sized by it, so 8 users held 4
// requests on the wire.
func TestDemoUsersNotCapped(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, "demo", "--sim-preset", "fast", "--users", "8", "--duration", "1s", "--num-warmups", "0",
		"--random-output-len", "32", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "Maximum request concurrency: 8\n") || !strings.Contains(out, ", 8 of 8 requests held in flight)") {
		t.Errorf("the loop did not hold its 8 users:\n%s", out)
	}
}
