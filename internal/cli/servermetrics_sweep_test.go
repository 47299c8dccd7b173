package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/sim"
)

// metricsSim is the fast simulator preset in batching mode, changed by mod.
func metricsSim(t *testing.T, mod func(c *sim.Config)) string {
	return startSim(t, func(c *sim.Config) {
		p, _ := sim.LookupPreset("fast")
		*c = c.WithPreset(p)
		c.Mode = sim.ModeBatching
		c.KeepTruth = false
		mod(c)
	}).URL
}

// TestSweepServerMetricsCause: a sweep that reads the simulator's
// metrics names the knee's cause — batch_limit over 8 batch slots,
// kv_cache (with preemptions) over a small KV cache — in the sweep
// file's saturation, the text and the verdict, and every step carries
// the server's summary (in the row and in its own result file).
func TestSweepServerMetricsCause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ladder, outLen string
		mod                  func(c *sim.Config)
		cause                string
	}{
		{"batch_limit", "1,2,4,8,16,32", "64", func(c *sim.Config) { c.Batching.MaxNumSeqs = 8 }, "batch_limit"},
		// The ladder goes past the knee to 32: under KV pressure the
		// throughput still creeps up a few % a step (preempted requests
		// are recomputed, not refused), and on a busy CI machine 16 alone
		// was not always within 5 % of the peak, so no knee was confirmed.
		{"kv_cache", "1,2,4,8,16,32", "256", func(c *sim.Config) {
			c.Batching.MaxNumSeqs, c.Batching.KVCacheTokens, c.MaxModelLen = 64, 1024, 1024
		}, "kv_cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := metricsSim(t, tt.mod)
			dir := t.TempDir()
			// A child process: the client's CPU share (which can mark a
			// step client-limited and move the knee) must not count the
			// simulator, which runs in this test process.
			code, out, errs := runChild(t, "sweep", "--base-url", url, "--model", "llmbench-sim", "--concurrency", tt.ladder,
				"--prompts-per-step", "32", "--random-input-len", "64", "--random-output-len", tt.outLen,
				"--server-metrics", "auto", "--server-metrics-interval", "250ms", "--tokenizer", "builtin:gpt2",
				"--ready-check-timeout-sec", "0", "--disable-tqdm", "--result-dir", dir)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			s := readSweep(t, dir)
			sat := s.Saturation
			if sat == nil {
				t.Fatalf("no saturation:\n%s", out)
			}
			if sat.Cause != tt.cause || !strings.Contains(out, "Cause: "+tt.cause) || !strings.Contains(s.Verdict, "Why it saturates (the server's metrics): "+sat.CauseDetail) {
				t.Errorf("cause %q (%s), verdict %q\n%s", sat.Cause, sat.CauseDetail, s.Verdict, out)
			}
			for _, r := range s.Steps {
				if r.Server == nil || r.Server.RunningMax == nil {
					t.Fatalf("step %v has no server summary", r.Load)
				}
				if r.Load == sat.Load && tt.cause == "kv_cache" && (r.Server.Preemptions == nil || *r.Server.Preemptions < 1) {
					t.Errorf("knee %v: preemptions %v", r.Load, r.Server.Preemptions)
				}
				b, err := os.ReadFile(r.ResultFile)
				if err != nil || !json.Valid(b) || !strings.Contains(string(b), `"server_metrics": {`) {
					t.Errorf("step %v result file: %v, no llmbench.server_metrics", r.Load, err)
				}
			}
			if tt.cause == "batch_limit" && !strings.Contains(sat.CauseDetail, "the batch is full at 8 running requests") {
				t.Errorf("detail %q", sat.CauseDetail)
			}
		})
	}
}

// TestSweepResetPrefixCache: a sweep whose steps send the same prompts
// warms the server's prefix cache for the later steps, and the sweep's
// notes say so; with --reset-prefix-cache (a POST before each step)
// every step starts cold and no note appears.
func TestSweepResetPrefixCache(t *testing.T) {
	t.Parallel()
	for _, reset := range []bool{false, true} {
		name := map[bool]string{false: "without reset", true: "with --reset-prefix-cache"}[reset]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := metricsSim(t, func(c *sim.Config) { c.Batching.MaxNumSeqs = 8 })
			dir := t.TempDir()
			args := []string{"sweep", "--base-url", url, "--model", "llmbench-sim", "--concurrency", "1,2,4",
				"--prompts-per-step", "16", "--random-input-len", "128", "--random-output-len", "8",
				"--server-metrics", "auto", "--server-metrics-interval", "250ms", "--tokenizer", "builtin:gpt2",
				"--ready-check-timeout-sec", "0", "--disable-tqdm", "--result-dir", dir}
			if reset {
				args = append(args, "--reset-prefix-cache")
			}
			code, out, errs := runChild(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			s := readSweep(t, dir)
			warned := strings.Contains(strings.Join(s.Notes, "\n"), "prefix-cache hit rate rose")
			if warned == reset || strings.Contains(errs, "Warning: --reset-prefix-cache") {
				for _, r := range s.Steps {
					t.Logf("%v: hit rate %v", r.Load, r.Server.PrefixCacheHitRate)
				}
				t.Errorf("notes %q\n%s", s.Notes, errs)
			}
		})
	}
}
