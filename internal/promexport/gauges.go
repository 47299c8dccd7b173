package promexport

import (
	"math"
	"slices"
)

// Verdicts of the client self-check, the values of llmbench_client_verdict's
// verdict label.
var Verdicts = []string{"valid", "degraded", "invalid"}

// RequestStarted adds one to phase's requests in flight. It is one atomic
// add, cheap enough for a dispatcher; pair it with RequestFinished, or use
// SetInFlight from a sampler instead.
func (e *Exporter) RequestStarted(phase string) {
	e.inFlight.WithLabelValues(phase).Inc()
}

// RequestFinished subtracts one from phase's requests in flight.
func (e *Exporter) RequestFinished(phase string) {
	e.inFlight.WithLabelValues(phase).Dec()
}

// SetInFlight sets phase's requests in flight to n.
func (e *Exporter) SetInFlight(phase string, n int) {
	e.inFlight.WithLabelValues(phase).Set(float64(n))
}

// SetTargetRate sets the request rate phase's schedule aims at, in
// requests per second; math.Inf(1) (vLLM's "inf") means all at once.
// Call it when a phase (run, sweep step) starts, and again when a ramp-up
// changes the rate.
func (e *Exporter) SetTargetRate(phase string, rps float64) {
	e.targetRate.WithLabelValues(phase).Set(rps)
}

// SetConcurrency sets phase's concurrency cap (--max-concurrency, a sweep
// step's concurrency) or its number of closed-loop users; 0 = no cap.
func (e *Exporter) SetConcurrency(phase string, n int) {
	e.concurrency.WithLabelValues(phase).Set(float64(n))
}

// SetDispatchLag sets phase's dispatch lag gauge, in seconds. Observe
// already sets it from each record (sent − intended − queue time); call
// this when the caller has a better figure, such as a running p99.
func (e *Exporter) SetDispatchLag(phase string, seconds float64) {
	e.lag.WithLabelValues(phase).Set(seconds)
}

// SetSelfCheck publishes the client self-check: one llmbench_client_check
// series per entry of values (e.g. "cpu_utilization": 0.93,
// "sched_latency_p99_seconds": 0.004, "dispatch_lag_p99_seconds": 0.002,
// "achieved_rate_ratio": 0.98), the verdict as a state set
// (llmbench_client_verdict, one of Verdicts), and llmbench_client_valid =
// 1 when verdict is "valid", else 0. A check reported before and missing
// now is removed; NaN values are skipped. The alert rules fire on
// llmbench_client_valid == 0.
func (e *Exporter) SetSelfCheck(values map[string]float64, verdict string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for name := range e.checks {
		if _, ok := values[name]; !ok {
			e.check.DeleteLabelValues(name)
			delete(e.checks, name)
		}
	}
	for name, v := range values {
		if math.IsNaN(v) {
			continue
		}
		e.check.WithLabelValues(name).Set(v)
		e.checks[name] = true
	}
	for _, v := range Verdicts {
		e.verdict.WithLabelValues(v).Set(b2f(v == verdict))
	}
	if !slices.Contains(Verdicts, verdict) {
		e.verdict.WithLabelValues(verdict).Set(1)
	}
	e.valid.Set(b2f(verdict == "valid"))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
