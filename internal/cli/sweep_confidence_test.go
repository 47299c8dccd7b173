package cli

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/sim"
)

// TestSweepRunsVerdicts: sweep --runs 3 against a simulator that holds 8
// streams. Every step has an sla_verdict judged on the t interval over
// its runs (run_stats); load 1 passes, 4× the capacity fails, and
// max_load_under_sla.resolved is set. The same sweep run twice gives the
// same verdict on every step either run calls resolved.
func TestSweepRunsVerdicts(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) {
		p, _ := sim.LookupPreset("fast")
		*c = c.WithPreset(p)
		c.Mode = sim.ModeBatching
		c.Batching.MaxNumSeqs = 8
		c.Batching.DecodeBase = 40 * time.Millisecond
		c.Batching.DecodePerSeq = 0
		c.Batching.DecodePerKVToken = 0
	})
	// 4 tokens at 40 ms: a request holds its slot ~160 ms, so at 32 in
	// flight the last of four waves waits ~480 ms for its first token,
	// far above 250 ms; at 1 and 8 none waits (~40 ms).
	sweep := func() *capacity.Sweep {
		dir := t.TempDir()
		code, out, errs := runChild(t, "sweep", "--base-url", srv.URL, "--model", "llmbench-sim",
			"--concurrency", "1,8,32", "--runs", "3", "--sla", "p90_ttft_ms<250",
			"--prompts-per-step", "32", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "4",
			"--num-prompts", "16", "--result-dir", dir, "--tokenizer", "builtin:gpt2", "--ready-check-timeout-sec", "0")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		return readSweep(t, dir)
	}
	var verdicts [2]map[float64]string
	for i := range verdicts {
		s := sweep()
		verdicts[i] = map[float64]string{}
		if len(s.Steps) != 3 {
			t.Fatalf("sweep %d: %d steps, want 3", i, len(s.Steps))
		}
		for _, r := range s.Steps {
			if r.SLAVerdict == "" || r.Runs != 3 {
				t.Errorf("sweep %d, load %v: verdict %q over %d runs", i, r.Load, r.SLAVerdict, r.Runs)
			}
			rs, ok := r.RunStats["p90_ttft_ms"]
			if !ok || rs.N != 3 || !(rs.Low <= rs.Mean && rs.Mean <= rs.High) {
				t.Errorf("sweep %d, load %v: run_stats %+v", i, r.Load, rs)
			}
			if tr := r.SLATerms[0]; tr.JudgedOn != capacity.JudgedRuns || tr.Interval == nil {
				t.Errorf("sweep %d, load %v: judged on %q", i, r.Load, tr.JudgedOn)
			}
			verdicts[i][r.Load] = r.SLAVerdict
			// Each run's result carries the K runs' figures for compare.
			for _, f := range strings.Fields(r.ResultFile) {
				var res struct {
					Llmbench struct {
						Runs []map[string]float64 `json:"runs"`
					} `json:"llmbench"`
				}
				b, err := os.ReadFile(f)
				if err == nil {
					err = json.Unmarshal(b, &res)
				}
				if runs := res.Llmbench.Runs; err != nil || len(runs) != 3 || runs[0]["p90_ttft_ms"] <= 0 {
					t.Errorf("%s: llmbench.runs %v (%v)", f, runs, err)
				}
			}
		}
		if v := verdicts[i][1]; v != capacity.VerdictPass {
			t.Errorf("sweep %d: load 1 is %s, want pass", i, v)
		}
		if v := verdicts[i][32]; v != capacity.VerdictFail {
			t.Errorf("sweep %d: load 32 is %s, want fail (p90 TTFT %v)", i, v, s.Steps[2].RunStats["p90_ttft_ms"])
		}
		if s.MaxLoadUnderSLA.Resolved == nil {
			t.Errorf("sweep %d: max_load_under_sla.resolved not set", i)
		}
	}
	for l, v := range verdicts[0] {
		w := verdicts[1][l]
		if v != capacity.VerdictUnresolved && w != capacity.VerdictUnresolved && v != w {
			t.Errorf("load %s: %s then %s", strconv.FormatFloat(l, 'f', -1, 64), v, w)
		}
	}
}
