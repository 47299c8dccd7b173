package servermetrics

import (
	"strings"
	"testing"
)

func f(v float64) *float64 { return &v }

// step is a sweep step with a server summary.
func step(load, runMean, runMax, waitMean, waitMax, kv, pre, tpot float64) StepSummary {
	return StepSummary{Load: load, Unit: "users", MeanTPOTMs: tpot, Server: &Summary{
		RunningMean: f(runMean), RunningMax: f(runMax), WaitingMean: f(waitMean), WaitingMax: f(waitMax),
		KVCacheUsageMax: f(kv), Preemptions: f(pre)}}
}

func TestCause(t *testing.T) {
	t.Parallel()
	knee := func(s StepSummary) StepSummary { s.Knee = true; return s }
	tests := []struct {
		name   string
		steps  []StepSummary
		cause  string
		detail []string // substrings of cause_detail
	}{
		{"no steps", nil, CauseUnknown, []string{"no sweep steps"}},
		// Without --server-metrics there is nothing to read.
		{"no server metrics", []StepSummary{{Load: 1}, {Load: 2, Knee: true}}, CauseUnknown, []string{"at the knee (2 users)", "--server-metrics"}},
		// 8 slots: running stops at 8 from 16 users on, the queue grows.
		{"batch limit", []StepSummary{
			step(1, 1, 1, 0, 0, 0.05, 0, 20), step(2, 2, 2, 0, 0, 0.1, 0, 21), step(4, 4, 4, 0, 0, 0.2, 0, 22),
			step(8, 7.9, 8, 0.1, 1, 0.4, 0, 24), knee(step(16, 8, 8, 7.8, 8, 0.4, 0, 25)), step(32, 8, 8, 23.5, 24, 0.4, 0, 25)},
			CauseBatchLimit, []string{"the batch is full at 8 running requests from 8 users on (up to 8 waiting): raise --max-num-seqs or add replicas"}},
		// The knee itself is the first step that waits.
		{"batch limit at first wait", []StepSummary{
			step(4, 4, 4, 0, 0, 0.2, 0, 22), knee(step(16, 8, 8, 7.8, 8, 0.4, 0, 25))},
			CauseBatchLimit, []string{"full at 8 running requests from 16 users on"}},
		// The throughput knee is the step that just fills the batch (8
		// users, 8 slots): nobody waits there yet, the queue grows at
		// every step after it (a real sweep over the simulator).
		{"batch limit, queue after the knee", []StepSummary{
			step(4, 3.2, 4, 0, 0, 0.01, 0, 3.1), knee(step(8, 5.3, 8, 0, 0, 0.013, 0, 4)),
			step(16, 6.4, 8, 5.6, 8, 0.013, 0, 4), step(32, 6.5, 8, 18, 24, 0.013, 0, 3.9)},
			CauseBatchLimit, []string{"the batch is full at 8 running requests from 16 users on (up to 24 waiting)"}},
		// KV usage at the knee reaches 0.9: the cache, not the cap, binds.
		{"kv usage", []StepSummary{
			step(8, 8, 8, 0, 0, 0.5, 0, 30), knee(step(16, 12, 13, 3, 5, 0.93, 0, 40))},
			CauseKVCache, []string{"the KV cache is full at 16 users (usage up to 0.93, 0 preemptions)"}},
		// Preemptions alone are enough, and win over a plateau.
		{"preemptions", []StepSummary{
			step(8, 6, 6, 0, 1, 0.7, 0, 30), knee(step(16, 6, 6, 9, 10, 0.85, 12, 60))},
			CauseKVCache, []string{"usage up to 0.85, 12 preemptions"}},
		// The batch keeps growing, nobody waits, steps get slower.
		{"compute", []StepSummary{
			step(8, 8, 8, 0, 0, 0.2, 0, 30), knee(step(16, 15.8, 16, 0, 0, 0.35, 0, 52)), step(32, 31, 32, 0, 0, 0.6, 0, 90)},
			CauseCompute, []string{"neither the batch cap nor the KV cache binds at 16 users (running mean 15.8, KV usage up to 0.35, no preemptions), but each step gets slower (mean TPOT 30 → 52 ms from 8 users): compute-bound"}},
		// Waiting, but the batch still grows past the knee: not the cap.
		{"batch grows after knee", []StepSummary{
			step(8, 8, 8, 0, 0, 0.2, 0, 30), knee(step(16, 12, 12, 2, 4, 0.4, 0, 50)), step(32, 30, 32, 0, 2, 0.6, 0, 90)},
			CauseCompute, []string{"running mean 12"}},
		// No knee marked: the last step is the knee.
		{"last step is the knee", []StepSummary{
			step(4, 4, 4, 0, 0, 0.2, 0, 22), step(16, 8, 8, 7.8, 8, 0.4, 0, 25)},
			CauseBatchLimit, []string{"from 16 users on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cause, detail := Cause(tt.steps)
			if cause != tt.cause {
				t.Errorf("cause %q, want %q (%s)", cause, tt.cause, detail)
			}
			for _, want := range tt.detail {
				if !strings.Contains(detail, want) {
					t.Errorf("detail %q lacks %q", detail, want)
				}
			}
			if strings.Count(detail, ". ") > 0 || strings.Contains(detail, "\n") {
				t.Errorf("detail is not one sentence: %q", detail)
			}
		})
	}
}

func TestPrefixCacheWarning(t *testing.T) {
	t.Parallel()
	hit := func(load float64, rate *float64) StepSummary {
		return StepSummary{Load: load, Unit: "users", Server: &Summary{PrefixCacheHitRate: rate}}
	}
	tests := []struct {
		name   string
		steps  []StepSummary
		shared bool
		want   string
	}{
		{"rising", []StepSummary{hit(1, f(0.02)), hit(2, f(0.4)), hit(4, f(0.63))}, false, "rose from 2 % at 1 users to 63 % at 4 users"},
		// A dataset built on shared prefixes is meant to hit.
		{"shared prefixes", []StepSummary{hit(1, f(0.02)), hit(4, f(0.63))}, true, ""},
		// Flat (reset between steps): no warning.
		{"flat", []StepSummary{hit(1, f(0.05)), hit(2, f(0.06)), hit(4, f(0.07))}, false, ""},
		// No prefix-cache families, or one step only.
		{"no data", []StepSummary{hit(1, nil), hit(2, nil)}, false, ""},
		{"one step", []StepSummary{hit(1, f(0.9))}, false, ""},
		{"no server", []StepSummary{{Load: 1}, {Load: 2}}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PrefixCacheWarning(tt.steps, tt.shared)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if got != "" && !strings.Contains(got, "--reset-prefix-cache") {
				t.Errorf("warning does not say what to do: %q", got)
			}
		})
	}
}
