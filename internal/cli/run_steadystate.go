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

// checkSteadyState checks run's steady-state flags.
func (o *runOptions) checkSteadyState() error {
	return checkSteadyStateFlags(o.f.steadyStateThreshold, o.f.steadyStateMinWindow)
}

// checkSteadyStateFlags checks --steady-state-threshold and
// --steady-state-min-window (run, sweep and metrics:
// metrics.CheckSteadyState).
func checkSteadyStateFlags(threshold float64, minWindow optFloat) error {
	if err := metrics.CheckSteadyState(threshold, optPtr(minWindow)); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// steadyState is the run's steady_state under vLLM's gate
// (bench.SteadyState, docs/confidence.md#steady_state).
func (o *runOptions) steadyState(plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary) (steadyStateOut, error) {
	f := &o.f
	write, ss, err := bench.SteadyState(plan, outcome, s, metrics.SteadyStateOptions{Disabled: f.noSteadyState,
		Threshold: f.steadyStateThreshold, MinWindow: optPtr(f.steadyStateMinWindow)})
	return steadyStateOut{write: write, value: ss}, err
}

// optPtr is an optional flag's value, nil when it was not given.
func optPtr(o optFloat) *float64 {
	if !o.set {
		return nil
	}
	return &o.v
}
