package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// readSweep loads the one sweep file a sweep wrote into dir.
func readSweep(t *testing.T, dir string) *capacity.Sweep {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "sweep-*.json"))
	if len(files) != 1 {
		t.Fatalf("sweep files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var s capacity.Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(strings.TrimSuffix(files[0], ".json") + ".csv"); err != nil {
		t.Error(err)
	}
	return &s
}

// sweepCapacity is the batch size of the servers the sweep tests probe:
// past it, a request waits a whole request's time for a slot, so p99
// TTFT jumps far above anything the client's own delays add.
const sweepCapacity = 6

// TestSweepFindsCapacity: against a server of known capacity, the sweep's
// max load under a TTFT SLA is that capacity (exactly, with --refine) and
// its saturation point lies within one ladder step of it.
func TestSweepFindsCapacity(t *testing.T) {
	t.Parallel()
	servers := map[string]func(t *testing.T) string{
		"simulator, batching mode": func(t *testing.T) string {
			srv := startSim(t, func(c *sim.Config) {
				p, _ := sim.LookupPreset("fast")
				*c = c.WithPreset(p)
				c.Mode = sim.ModeBatching
				c.Batching.MaxNumSeqs = sweepCapacity
				c.Batching.DecodeBase = 40 * time.Millisecond
				c.Batching.DecodePerSeq = 0
				c.Batching.DecodePerKVToken = 0
			})
			return srv.URL
		},
		"plain server: N streams at once, the rest queue": func(t *testing.T) string {
			return queueingServer(t, sweepCapacity, 40*time.Millisecond)
		},
	}
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := start(t)
			dir := t.TempDir()
			// 16 tokens at 40 ms (steps long against a busy machine's
			// timer noise, which otherwise moves throughput by 10 %): a
			// queued request waits ~640 ms, against an SLA of 300 ms on
			// p90 (past the capacity, at least one request in eight
			// waits), far from any delay a busy machine adds to the ones
			// that do not wait.
			// As its own process: the client's CPU share (one of the
			// checks that mark a step client-limited) must not count the
			// servers, which run in this test process.
			code, out, errs := runChild(t, "sweep", "--base-url", url, "--model", "llmbench-sim",
				"--concurrency", "4,8,16,32", "--sla", "p90_ttft_ms<300", "--refine", "4",
				"--prompts-per-step", "24", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "16",
				"--num-prompts", "16", "--result-dir", dir, "--tokenizer", "builtin:gpt2", "--ready-check-timeout-sec", "0")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			s := readSweep(t, dir)
			if ml := s.MaxLoadUnderSLA.Load; ml == nil || *ml != sweepCapacity {
				t.Errorf("max load under SLA %v, want %d\n%s", ml, sweepCapacity, out)
			}
			if b := s.MaxLoadUnderSLA.Binding; b == nil || *b != "p90_ttft_ms" {
				t.Errorf("binding %v", b)
			}
			if sat := s.Saturation; sat == nil || sat.Load < 4 || sat.Load > 8 {
				t.Errorf("saturation %+v, want within one step of %d\n%s", sat, sweepCapacity, out)
			}
			if !strings.Contains(out, "Verdict: meets the SLA up to 6 concurrent users") {
				t.Errorf("no verdict in the output:\n%s", out)
			}
			// 24/24 within 300 ms is unresolved against p90 (Wilson
			// [0.86, 1]), so --refine first runs such steps again with
			// 48 requests (48/48: [0.93, 1], a pass), then bisects.
			for _, r := range s.Steps {
				if _, err := os.Stat(r.ResultFile); err != nil || (r.Completed != 24 && r.Completed != 48) {
					t.Errorf("step %v: result file %v, %d completed", r.Load, err, r.Completed)
				}
				if r.Load <= sweepCapacity && r.SLAVerdict != capacity.VerdictPass && r.SLAVerdict != capacity.VerdictUnresolved {
					t.Errorf("step %v: %s, under the capacity", r.Load, r.SLAVerdict)
				}
			}
		})
	}
}

// queueingServer is an OpenAI completions server that streams tokens
// to at most n requests at once; the others wait for a slot before their
// first token.
func queueingServer(t *testing.T, n int, itl time.Duration) string {
	slots := make(chan struct{}, n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		select {
		case slots <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-slots }()
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range body.MaxTokens {
			time.Sleep(itl)
			fr := "null"
			if i == body.MaxTokens-1 {
				fr = `"length"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":%s}]}\n\n", fr)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", body.MaxTokens, 8+body.MaxTokens)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runChild runs llmbench args as a child process (this test binary, which
// runs Main when called as "llmbench"; see TestMain), bounded in time.
func runChild(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runChildIn(t, "", args...)
}

// runChildIn is runChild in folder dir ("" = this one): where a
// config.yaml is picked up.
func runChildIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Args[0] = "llmbench"
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatal(err)
	return -1, "", ""
}

// TestSweepRateCap: a rate sweep under --max-concurrency holds requests
// back in the dispatcher, before their clock starts, as run does: against
// a server that answers every request in 100 ms whatever the load, a step
// sending 40 req/s at most 2 at a time reports max_concurrency 2 and a
// TTFT near 100 ms. The step used to drop the cap while the connection
// pool kept it: requests waited for a connection inside their TTFT (about
// 1 s here) and the result said no cap.
func TestSweepRateCap(t *testing.T) {
	t.Parallel()
	srv := simtest.Start(t, simtest.Fixed(100*time.Millisecond, 5*time.Millisecond))
	dir := t.TempDir()
	code, _, errs := runCLI(t, "sweep", "--no-config", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--request-rates", "40", "--max-concurrency", "2", "--prompts-per-step", "16", "--step-warmup", "0",
		"--random-input-len", "4", "--random-output-len", "2", "--disable-tqdm", "--result-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	s := readSweep(t, dir)
	if len(s.Steps) != 1 {
		t.Fatalf("steps: %+v", s.Steps)
	}
	steps, _ := filepath.Glob(filepath.Join(dir, "sweep-*", "request_rate-40.json"))
	if len(steps) != 1 {
		t.Fatalf("step results: %v", steps)
	}
	res := readResult(t, steps[0])
	if mc, ok := res["max_concurrency"].(float64); !ok || mc != 2 {
		t.Errorf("max_concurrency %v, want 2", res["max_concurrency"])
	}
	// Waiting for a connection inside TTFT puts the median request
	// behind about 7 others of 130 ms (about 300 ms): twice the server's
	// TTFT leaves room for a busy machine.
	if ttft := num(t, res, "median_ttft_ms"); ttft > 200 {
		t.Errorf("median TTFT %.1f ms against a 100 ms server: requests waited for a connection inside their TTFT", ttft)
	}
}
