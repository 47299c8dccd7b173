package cli

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
)

// TestRunInterruptWhileAligning: Ctrl-C while the prompts are being
// aligned with a server that accepts /tokenize and never answers exits
// 130 at once, not 1 with "context canceled".
func TestRunInterruptWhileAligning(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold every connection open, answer nothing
			accepted <- struct{}{}
		}
	}()
	ctx, cancel := context.WithCancel(t.Context())
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, "test", []string{"run", "--base-url", "http://" + ln.Addr().String(), "--model", "m",
			"--tokenizer", "builtin:gpt2", "--num-prompts", "4", "--disable-tqdm"}, strings.NewReader(""), &out, &errb)
	}()
	<-accepted // the probe's connection
	<-accepted // /tokenize
	cancel()
	select {
	case code := <-done:
		if code != 130 || !strings.Contains(errb.String(), "interrupted before the benchmark started") {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C did not stop a run waiting on /tokenize")
	}
}

// TestSweepInterruptKeepsSteps: a sweep stopped by Ctrl-C keeps every
// finished step and writes the analysis of what it has.
func TestSweepInterruptKeepsSteps(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) { c.ITL = 5 * time.Millisecond })
	dir := t.TempDir()
	code, out, errb := interruptedSweep(t, "step 3 of 8", 0, "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--concurrency", "1,2,3,4,5,6,7,8", "--prompts-per-step", "8", "--step-warmup", "0", "--random-input-len", "8",
		"--random-output-len", "40", "--save-detailed", "--result-dir", dir)
	if code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, errb)
	}
	s := readSweep(t, dir)
	if len(s.Steps) != 2 || s.Steps[0].Load != 1 || s.Steps[1].Load != 2 || s.Verdict == "" {
		t.Errorf("%d steps (%+v), verdict %q; want the 2 finished steps analysed", len(s.Steps), s.Steps, s.Verdict)
	}
	if !strings.Contains(out, "interrupted; it is left out") && !strings.Contains(out, "stopped early") {
		t.Errorf("the output does not say the sweep stopped early:\n%s", out)
	}
	// The interrupted step's records end as an interrupted run's do: with
	// the closing line (docs/records.md, "Closing line").
	paths, err := filepath.Glob(filepath.Join(dir, "*", "concurrency-3.records.jsonl"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("step 3's records: %v %v", paths, err)
	}
	params, _, _, err := record.ReadFile(paths[0])
	if err != nil || params.Unfinished || !params.Interrupted {
		t.Errorf("step 3's records: unfinished %v, interrupted %v (%v); want a closing line saying interrupted",
			params.Unfinished, params.Interrupted, err)
	}
}

// interruptedSweep runs "llmbench sweep args" in the background, cancels
// it (Ctrl-C) after once stderr shows waitFor, and returns its exit
// code, stdout and stderr.
func interruptedSweep(t *testing.T, waitFor string, after time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errb syncBuf
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, "test", append([]string{"sweep"}, args...), strings.NewReader(""), &out, &errb)
	}()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(errb.String(), waitFor); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("no %q on stderr within a minute:\n%s", waitFor, errb.String())
		}
	}
	time.Sleep(after)
	cancel()
	code = <-done
	return code, out.String(), errb.String()
}
