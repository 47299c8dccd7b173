package cli

import (
	"strings"
	"testing"
	"time"
)

// TestSweepRequireLoadAndScaleOut: --require-load fails a sweep whose
// largest load under the SLA is below it (issue 29 item 11: a CI gate),
// and the verdict gives the scale-out targets at 80 % of that load
// instead of "scale out before L" beside "meets the SLA up to L".
func TestSweepRequireLoadAndScaleOut(t *testing.T) {
	t.Parallel()
	url := queueingServer(t, 2, 20*time.Millisecond)
	for _, tt := range []struct {
		need string
		code int
	}{{"2", 0}, {"4", 1}} {
		dir := t.TempDir()
		code, out, errs := runCLI(t, "sweep", "--no-config", "--base-url", url, "--model", "m", "--tokenizer", "builtin:gpt2",
			"--concurrency", "2,4", "--prompts-per-step", "16", "--step-warmup", "0", "--sla", "p90_ttft_ms<150",
			"--random-input-len", "8", "--random-output-len", "10", "--num-prompts", "8", "--result-dir", dir, "--require-load", tt.need)
		if code != tt.code {
			t.Fatalf("--require-load %s: exit %d, want %d\n%s\n%s", tt.need, code, tt.code, out, errs)
		}
		if tt.code == 1 && !strings.Contains(errs, "--require-load 4: the largest concurrency under the SLA is 2") {
			t.Errorf("no gate message:\n%s", errs)
		}
		s := readSweep(t, dir)
		if s.AtSLA == nil || s.AtSLA.HPATargetInFlight != 2 {
			t.Fatalf("at SLA %+v, want an HPA target of round(0.8 x 2) = 2\n%s", s.AtSLA, out)
		}
		for _, want := range []string{"meets the SLA up to 2 concurrent users", "scale out at 80 % of that load: a Kubernetes HPA target of 2 requests in flight per pod"} {
			if !strings.Contains(s.Verdict, want) {
				t.Errorf("verdict lacks %q: %s", want, s.Verdict)
			}
		}
		if strings.Contains(s.Verdict, "scale out before") {
			t.Errorf("verdict still reads as a contradiction: %s", s.Verdict)
		}
	}
}
