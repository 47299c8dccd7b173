package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// TestTwoInterrupts: two SIGINTs that arrive together are one Ctrl-C.
// `timeout -s INT` sends one to the process and one to its group, and the
// second used to take the quit-at-once path, so about one run in four
// saved nothing; the run must stop sending, let the requests in flight
// end, and save what it measured (exit 130, "interrupted": true). A
// second Ctrl-C pressed later still quits at once (README).
func TestTwoInterrupts(t *testing.T) {
	srv := simtest.Start(t, simtest.Fixed(20*time.Millisecond, 20*time.Millisecond))
	for _, tt := range []struct {
		name  string
		gap   time.Duration
		saved bool
	}{
		{"together: one Ctrl-C", 5 * time.Millisecond, true},
		{"a second press: quit at once", 600 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "run", "--base-url", srv.URL, "--model", "llmbench-sim",
				"--tokenizer", "builtin:gpt2", "--num-prompts", "40", "--max-concurrency", "2", "--random-input-len", "4",
				"--random-output-len", "200", "--disable-tqdm", "--no-config", "--save-result", "--result-filename", "r.json")
			cmd.Env = append(os.Environ(), "LLMBENCH_TEST_MAIN=1")
			cmd.Dir = dir
			var out lockedBuf
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The banner comes just before the timed run; then requests
			// (4 s each) are in flight.
			for deadline := time.Now().Add(time.Minute); !strings.Contains(out.String(), "Maximum request concurrency"); {
				if time.Now().After(deadline) {
					t.Fatalf("no banner within a minute:\n%s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			for range 2 {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				time.Sleep(tt.gap)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("exit: %v\n%s", err, out.String())
			}
			_, statErr := os.Stat(filepath.Join(dir, "r.json"))
			if !tt.saved {
				if ee.ExitCode() != -1 || statErr == nil { // killed by the signal
					t.Errorf("exit %v, result saved %v: want killed at once, nothing saved", err, statErr == nil)
				}
				return
			}
			if ee.ExitCode() != 130 {
				t.Fatalf("exit: %v, want 130\n%s", err, out.String())
			}
			b, err := os.ReadFile(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatalf("no result saved: %v\n%s", err, out.String())
			}
			var res struct {
				Llmbench struct{ Interrupted bool } `json:"llmbench"`
			}
			if err := json.Unmarshal(b, &res); err != nil || !res.Llmbench.Interrupted {
				t.Errorf("result: llmbench.interrupted %v (%v)", res.Llmbench.Interrupted, err)
			}
		})
	}
}

// lockedBuf is a strings.Builder the child's output goes to while the
// test reads it.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
