// Package load decides when each benchmark request is sent and sends it
// then: a pure, seeded arrival schedule (vllm bench serve's request rate,
// burstiness and ramp-up) and a dispatcher that fires requests at those
// instants, open loop, with an optional client-side concurrency cap.
//
// It knows nothing about HTTP, backends or metrics: the dispatcher calls a
// function per request and reports when each one was meant to start and
// when it really did.
package load

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llmbench/llmbench/internal/numpyrand"
)

// Ramp strategies (vLLM's --ramp-up-strategy values).
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
)

// Arrivals describes the arrival process (docs/metrics.md#arrival-process, docs/metrics.md#ramp-up).
type Arrivals struct {
	// Rate is the request rate in requests per second. +Inf (and the zero
	// value, vLLM's default "inf") sends every request at offset 0.
	Rate float64
	// Burstiness is the shape of the gamma distribution of the gaps
	// between requests: 1 is a Poisson process, < 1 burstier, > 1 more
	// regular, +Inf constant spacing 1/rate. The zero value means 1.
	Burstiness float64
	// Seed seeds NumPy's legacy RNG exactly as vLLM's --seed does
	// (numpy.random.seed(seed)); 0 to 2**32-1.
	Seed int64
	// RampStrategy is "" (no ramp-up), RampLinear or RampExponential.
	RampStrategy string
	// RampStartRPS and RampEndRPS are the ramp's first and last request
	// rates (vLLM's --ramp-up-start-rps/--ramp-up-end-rps, integers).
	RampStartRPS, RampEndRPS int
}

func (a Arrivals) rate() float64 {
	if a.Rate == 0 {
		return math.Inf(1)
	}
	return a.Rate
}

func (a Arrivals) burstiness() float64 {
	if a.Burstiness == 0 {
		return 1
	}
	return a.Burstiness
}

// Validate applies vLLM's checks (burstiness > 0; the ramp-up rules of
// docs/metrics.md#ramp-up) with vLLM's messages.
func (a Arrivals) Validate() error {
	if r := a.rate(); math.IsNaN(r) || r < 0 {
		return fmt.Errorf("request rate must be positive or inf, got %v", a.Rate)
	}
	if b := a.burstiness(); math.IsNaN(b) || b <= 0 {
		return fmt.Errorf("a positive burstiness factor is expected, but given %v", a.Burstiness)
	}
	if a.Seed < 0 || a.Seed > math.MaxUint32 {
		return fmt.Errorf("seed must be between 0 and 2**32 - 1, got %d", a.Seed)
	}
	switch a.RampStrategy {
	case "":
		return nil
	case RampLinear, RampExponential:
	default:
		return fmt.Errorf("unknown ramp-up strategy %q (want %s or %s)", a.RampStrategy, RampLinear, RampExponential)
	}
	if !math.IsInf(a.rate(), 1) {
		return errors.New("when using ramp-up, do not specify --request-rate; the request rate will be controlled by ramp-up parameters")
	}
	if a.RampStartRPS < 0 || a.RampEndRPS < 0 {
		return errors.New("ramp-up start and end RPS must be non-negative")
	}
	if a.RampStartRPS > a.RampEndRPS {
		return errors.New("ramp-up start RPS must be less than end RPS")
	}
	if a.RampStrategy == RampExponential && a.RampStartRPS == 0 {
		return errors.New("for exponential ramp-up, the start RPS cannot be 0")
	}
	return nil
}

// Plan is a computed schedule.
type Plan struct {
	// Offsets are the intended send times of the requests, as offsets from
	// the start of the run, in dispatch order (non-decreasing).
	Offsets []time.Duration
	// Seconds are the same offsets as vLLM computes them, in float seconds
	// (bit-for-bit what its get_request sleeps towards; Offsets round them
	// to nanoseconds). Tests check them against vLLM's own values.
	Seconds []float64
	// Rates are each request's current request rate (the ramp's rate under
	// ramp-up, else the configured rate; +Inf for "inf").
	Rates []float64
}

// Schedule computes the intended send offsets of n requests the way
// vllm bench serve's get_request does (docs/metrics.md#arrival-process, docs/metrics.md#ramp-up):
//
//   - per request a gap: 0 when the rate is inf; 1/rate when burstiness is
//     inf; otherwise a Gamma(shape=burstiness, scale=1/(rate*burstiness))
//     draw from NumPy's legacy RNG (mean 1/rate);
//   - offsets are the running sums of the gaps (so the first request is
//     sent after one gap, not at 0);
//   - without ramp-up, if the last offset is non-zero, all offsets are
//     scaled by (n/rate)/last so the last request goes out at exactly
//     n/rate seconds. Example: rate 10, n 100 → the last request at 10 s.
//   - with ramp-up, request i's rate is start + (end-start)·p (linear) or
//     start·(end/start)^p (exponential), p = i/max(n-1, 1); no rescaling.
//     Every rate must be > 0 (vLLM asserts this, so a linear ramp from 0
//     fails on the first request).
//
// The gamma draws come from numpyrand.RandomState, NumPy's legacy global
// RNG. With the same --seed and no other use of that RNG before the
// schedule (true for the random and sharegpt datasets, whose samplers use
// their own generators), the schedule equals vLLM's up to last-bit
// differences between Go's math.Log/Pow and the C library's.
func Schedule(n int, a Arrivals) (*Plan, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("number of requests must be >= 0, got %d", n)
	}
	p := &Plan{Offsets: make([]time.Duration, n), Seconds: make([]float64, n), Rates: make([]float64, n)}
	if n == 0 {
		return p, nil
	}
	rng, err := numpyrand.NewRandomState(a.Seed)
	if err != nil {
		return nil, err
	}
	rate, burst := a.rate(), a.burstiness()
	d := p.Seconds
	for i := range n {
		r := rate
		if a.RampStrategy != "" {
			progress := float64(i) / float64(max(n-1, 1))
			start, end := float64(a.RampStartRPS), float64(a.RampEndRPS)
			if a.RampStrategy == RampLinear {
				r = start + (end-start)*progress
			} else {
				r = start * math.Pow(end/start, progress)
			}
			if !(r > 0) {
				return nil, fmt.Errorf("obtained non-positive request rate %v for request %d", r, i)
			}
		}
		p.Rates[i] = r
		switch {
		case math.IsInf(r, 1):
			d[i] = 0
		case math.IsInf(burst, 1):
			d[i] = 1 / r
		default:
			d[i] = rng.Gamma(burst, 1/(r*burst))
		}
	}
	for i := 1; i < n; i++ {
		d[i] += d[i-1]
	}
	if a.RampStrategy == "" && d[n-1] != 0 {
		f := (float64(n) / rate) / d[n-1]
		for i := range d {
			d[i] *= f
		}
	}
	for i, s := range d {
		p.Offsets[i] = secondsToDuration(s)
	}
	return p, nil
}

// secondsToDuration rounds to the nearest nanosecond, saturating.
func secondsToDuration(s float64) time.Duration {
	ns := math.Round(s * 1e9)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// RPSChange is one entry of vLLM's rps_change_events.
type RPSChange struct {
	// RPS is the integer request rate reached.
	RPS int
	// At is when it was reached: the dispatch offset from the start of
	// the run of the request that reached it (0 for the first entry). The
	// result file shows start time + At as an ISO timestamp.
	At time.Duration
}

// RPSChanges builds vLLM's rps_change_events for a ramp-up run: an entry
// {startRPS, 0}, then, whenever int(rates[i]) exceeds the last recorded
// value, one entry per integer step up to it, all stamped with at[i] (when
// request i was dispatched: the dispatcher's arrival offsets, or
// Plan.Offsets). It returns nil when there is no ramp-up (startRPS < 0 or
// no rates).
func RPSChanges(startRPS int, rates []float64, at []time.Duration) []RPSChange {
	if startRPS < 0 || len(rates) == 0 {
		return nil
	}
	out := []RPSChange{{RPS: startRPS}}
	last := startRPS
	for i, r := range rates {
		cur := int(r) // Python int() truncates toward zero
		if cur > last {
			var t time.Duration
			if i < len(at) {
				t = at[i]
			}
			for v := last + 1; v <= cur; v++ {
				out = append(out, RPSChange{RPS: v, At: t})
			}
			last = cur
		}
	}
	return out
}
