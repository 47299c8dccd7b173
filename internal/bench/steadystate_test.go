package bench

import (
	"math"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestSteadyState: the gate of vLLM's Rust client on a step: the key
// left out for conversations, null for a replayed trace or a finite rate,
// the object for a closed loop at rate inf, an error for bad flags.
func TestSteadyState(t *testing.T) {
	t.Parallel()
	// Four requests in flight together for 20 s: a window at
	// --max-concurrency 4.
	recs := make([]record.Record, 4)
	for i := range recs {
		recs[i] = record.Record{Success: true, Latency: 20, TTFT: 1, ITL: []float64{1, 1}, PromptLen: 8}
	}
	conc := 4
	closed := record.Params{RequestRate: record.Rate(math.Inf(1)), MaxConcurrency: &conc, DurationS: 20}
	finite := closed
	finite.RequestRate = 2
	sum := func(p record.Params) *Summary {
		return &Summary{Params: p, Metrics: &metrics.Summary{OutputLens: []int{3, 3, 3, 3}, Percentiles: []float64{99}}}
	}
	for _, c := range []struct {
		name      string
		plan      Plan
		params    record.Params
		flags     metrics.SteadyStateOptions
		write, ss bool
		err       bool
	}{
		{"a closed loop at rate inf", Plan{}, closed, metrics.SteadyStateOptions{}, true, true, false},
		{"--no-steady-state: null", Plan{}, closed, metrics.SteadyStateOptions{Disabled: true}, true, false, false},
		{"a finite rate: null", Plan{}, finite, metrics.SteadyStateOptions{}, true, false, false},
		{"a replayed trace: null whatever its rate", Plan{Schedule: make([]time.Duration, 4)}, closed, metrics.SteadyStateOptions{}, true, false, false},
		{"conversations: no key", Plan{Conversations: []Conversation{{}}}, closed, metrics.SteadyStateOptions{}, false, false, false},
		{"a threshold out of range", Plan{}, closed, metrics.SteadyStateOptions{Threshold: 2}, false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			write, ss, err := SteadyState(&c.plan, &Outcome{Records: recs}, sum(c.params), c.flags)
			if write != c.write || (ss != nil) != c.ss || (err != nil) != c.err {
				t.Errorf("write %v, steady state %v, error %v; want %v, %v, %v", write, ss != nil, err, c.write, c.ss, c.err)
			}
		})
	}
}
