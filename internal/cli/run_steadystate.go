package cli

import (
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/metrics"
)

// steadyStateOut is what a run's result says of its steady state: write
// is whether the result carries the steady_state key at all, value its
// object (nil = null).
type steadyStateOut struct {
	write bool
	value *metrics.SteadyState
}

// checkSteadyState checks the steady-state flags with vLLM's Rust
// client's messages (src/config.rs).
func (o *runOptions) checkSteadyState() error {
	return checkSteadyStateFlags(o.f.steadyStateThreshold, o.f.steadyStateMinWindow)
}

// checkSteadyStateFlags checks --steady-state-threshold and
// --steady-state-min-window (run, sweep and metrics).
func checkSteadyStateFlags(threshold float64, minWindow optFloat) error {
	if !(threshold > 0 && threshold <= 1) {
		return usageErrorf("--steady-state-threshold must be in (0.0, 1.0], got %v", threshold)
	}
	if minWindow.set && minWindow.v < 0 {
		return usageErrorf("--steady-state-min-window must be >= 0, got %v", minWindow.v)
	}
	return nil
}

// steadyState computes the run's steady_state (metrics.SteadyStateOf,
// docs/confidence.md#steady_state) under the gate of vLLM's Rust client
// (src/benchmark.rs: not --no-steady-state, --max-concurrency set,
// --request-rate inf; a --users run counts, its users being its
// concurrency at an infinite rate). That client writes the key in every
// single-turn result, null where the gate fails or no window is found,
// and leaves it out of its multi-turn result; so does this. A replayed
// trace (plan.Schedule) is no closed loop whatever its rate flag says:
// null.
func (o *runOptions) steadyState(plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary) (steadyStateOut, error) {
	if plan.Conversations != nil {
		return steadyStateOut{}, nil
	}
	f := &o.f
	opt := metrics.SteadyStateOptions{
		RateFinite:  !s.Params.RequestRate.IsInf() || plan.Schedule != nil,
		Disabled:    f.noSteadyState,
		Threshold:   f.steadyStateThreshold,
		Duration:    s.Params.DurationS,
		Percentiles: s.Metrics.Percentiles,
	}
	if s.Params.MaxConcurrency != nil {
		opt.MaxConcurrency = *s.Params.MaxConcurrency
	}
	if f.steadyStateMinWindow.set {
		mw := f.steadyStateMinWindow.v
		opt.MinWindow = &mw
	}
	ss, err := metrics.SteadyStateOf(outcome.Records, s.Metrics.OutputLens, opt)
	if err != nil {
		return steadyStateOut{}, err
	}
	return steadyStateOut{write: true, value: ss}, nil
}
