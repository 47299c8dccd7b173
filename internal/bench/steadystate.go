package bench

import "github.com/llmbench/llmbench/internal/metrics"

// SteadyState is the step's steady_state (metrics.SteadyStateOf,
// docs/confidence.md#steady_state) under the gate of vLLM's Rust client
// (src/benchmark.rs: not --no-steady-state, --max-concurrency set,
// --request-rate inf; a --users step counts, its users being its
// concurrency at an infinite rate). flags carries --no-steady-state,
// --steady-state-threshold and --steady-state-min-window. That client
// writes the key in every single-turn result, null where the gate fails
// or no window is found, and leaves it out of its multi-turn result; so
// does this: write is false for conversations. A replayed trace
// (p.Schedule) is no closed loop whatever its rate flag says: null.
func SteadyState(p *Plan, o *Outcome, s *Summary, flags metrics.SteadyStateOptions) (write bool, ss *metrics.SteadyState, err error) {
	if p.Conversations != nil {
		return false, nil, nil
	}
	opt := flags.ForRun(&s.Params, s.Metrics)
	opt.RateFinite = opt.RateFinite || p.Schedule != nil
	ss, err = metrics.SteadyStateOf(o.Records, s.Metrics.OutputLens, opt)
	return err == nil, ss, err
}
