package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
)

// TestStepRequestsCoverSLAPercentiles: a default step holds as many
// requests as the SLA's percentiles need (issue 29: a p99 of 6 requests
// fed the verdict): 100 for a p99, 1,000 for a p99.9, else 8 x load, at
// least 32.
func TestStepRequestsCoverSLAPercentiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind capacity.Kind
		sla  string
		load float64
		want int
	}{
		{"no SLA: 8 x load, at least 32", capacity.Concurrency, "", 2, 32},
		{"no SLA, high load", capacity.Concurrency, "", 64, 512},
		{"p99 TTFT needs 100", capacity.Concurrency, "p99_ttft_ms<500", 2, 100},
		{"p99.9 needs 1,000", capacity.Users, "p99.9_e2el_ms<9000", 2, 1000},
		{"ITL percentiles pool chunks: no need", capacity.Concurrency, "p99_itl_ms<30", 2, 32},
		{"rates: 20 s of the rate, or the SLA's need", capacity.RequestRate, "p99_ttft_ms<500", 1, 100},
		{"rates: 20 s at 10 req/s", capacity.RequestRate, "p99_ttft_ms<500", 10, 200},
	}
	for _, tt := range tests {
		sla, err := capacity.ParseSLA(tt.sla)
		if err != nil {
			t.Fatal(err)
		}
		d := &sweepDriver{o: &sweepOptions{}, kind: tt.kind, sla: sla}
		if got := d.stepRequests(tt.load); got != tt.want {
			t.Errorf("%s: %d requests, want %d", tt.name, got, tt.want)
		}
	}
}

// TestSweepPrintPlan: the ladder's size and, bounded by time, its length
// are said before the first step (issue 29 item 11).
func TestSweepPrintPlan(t *testing.T) {
	t.Parallel()
	base := &bench.Plan{Requests: make([]backend.Request, 10)}
	sla, _ := capacity.ParseSLA("p99_ttft_ms<500")
	var b bytes.Buffer
	d := &sweepDriver{o: &sweepOptions{s: sweepFlags{refine: 2}}, kind: capacity.Concurrency, sla: sla, base: base}
	d.printPlan(&b, []float64{1, 8, 32})
	want := "Plan: 3 steps (concurrency 1, 8, 32) of 100-256 requests each, 456 in all, plus up to 2 refinement steps; the time depends on the server (each step's line estimates the rest).\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	d.o.s = sweepFlags{stepDuration: 30 * time.Second}
	d.o.f.repeat.runs.k = 2
	d.printPlan(&b, []float64{10, 20})
	if want := "Plan: 4 steps (concurrency 10, 20, 2 runs each) of 30s each after their warm-ups: about 2m0s in all.\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

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
