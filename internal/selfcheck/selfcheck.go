// Package selfcheck judges whether a benchmark client could measure
// faithfully: from what the client measured about itself during the timed
// run (CPU use, Go scheduler latency, dispatch lag, achieved against target
// rate), a pure function gives a verdict — valid, degraded or invalid —
// with the reasons. The thresholds and where they come from are in
// docs/fidelity.md.
//
// selfcheck reads no clock and touches no runtime: the caller (internal/bench)
// samples, this package judges, so the rules are table-tested.
package selfcheck

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Verdict says how far a result can be trusted.
type Verdict string

// The verdicts, from best to worst.
const (
	// Valid: the client had room to spare; its stamps are as good as this
	// host allows.
	Valid Verdict = "valid"
	// Degraded: the client was busy enough that stamps may be late by
	// more than a millisecond; compare tails with care.
	Degraded Verdict = "degraded"
	// Invalid: the client was itself a bottleneck; latencies include its
	// own delays.
	Invalid Verdict = "invalid"
)

// Measurements are what the client measured about itself over the timed
// run. A zero field means "not measured" and is not judged.
type Measurements struct {
	// Wall is the timed run's duration.
	Wall time.Duration
	// CPU is the process's user + system CPU time over the timed run.
	CPU time.Duration
	// Cores is the number of cores the Go runtime could use (GOMAXPROCS).
	Cores int
	// SchedLatencyP99 is the 99th percentile of the Go scheduler's
	// latency (runnable → running, runtime/metrics
	// /sched/latencies:seconds) over the timed run.
	SchedLatencyP99 time.Duration
	// DispatchLagP99 is the 99th percentile of sent − intended (the
	// dispatcher's lateness against the schedule).
	DispatchLagP99 time.Duration
	// TargetRate is the schedule's rate in requests/s; +Inf or 0 when all
	// requests were due at once (then AchievedRate is not judged).
	TargetRate float64
	// AchievedRate is requests dispatched ÷ the time from the start to
	// the last dispatch, in requests/s.
	AchievedRate float64
	// Events counts the stream chunks the client read and stamped.
	Events int64
	// Connections counts the connections the client opened.
	Connections int64
	// InFlightWanted is how many requests a closed loop asked to keep in
	// flight (its users or its concurrency); 0 for an open loop, whose
	// in-flight count is the server's to set.
	InFlightWanted int
	// InFlightHeld is the most requests the client could have had in
	// flight at once: the peak overlap of the records, bounded by the
	// backend's connection pool (a pool of 4 holds 4 requests on the wire
	// whatever the loop asks; the others wait in the client, and that
	// wait lands in TTFT). 0 = not measured.
	InFlightHeld int
}

// CPUShare is CPU ÷ (Wall × Cores): the share of the host's cores the
// client used (0..1); 0 when not measured.
func (m *Measurements) CPUShare() float64 {
	if m.Wall <= 0 || m.Cores <= 0 || m.CPU <= 0 {
		return 0
	}
	return m.CPU.Seconds() / (m.Wall.Seconds() * float64(m.Cores))
}

// EventsPerSecond is Events ÷ Wall.
func (m *Measurements) EventsPerSecond() float64 {
	if m.Wall <= 0 {
		return 0
	}
	return float64(m.Events) / m.Wall.Seconds()
}

// Limit is a pair of thresholds: above Degraded the verdict is at best
// degraded, above Invalid it is invalid.
type Limit struct{ Degraded, Invalid float64 }

// Thresholds are the limits Judge applies (docs/fidelity.md#thresholds explains each).
type Thresholds struct {
	// CPUShare bounds Measurements.CPUShare.
	CPUShare Limit
	// SchedLatencyMs bounds the scheduler latency p99, in ms.
	SchedLatencyMs Limit
	// DispatchLagMs bounds the dispatch lag p99, in ms.
	DispatchLagMs Limit
	// RateShortfall bounds 1 − achieved/target rate.
	RateShortfall Limit
}

// DefaultThresholds are the limits calibrated on a 2-core host against
// the simulator (docs/fidelity.md#thresholds).
var DefaultThresholds = Thresholds{
	CPUShare:       Limit{Degraded: 0.70, Invalid: 0.90},
	SchedLatencyMs: Limit{Degraded: 5, Invalid: 50},
	DispatchLagMs:  Limit{Degraded: 10, Invalid: 100},
	RateShortfall:  Limit{Degraded: 0.05, Invalid: 0.20},
}

// Result is a verdict and why.
type Result struct {
	Verdict Verdict
	// Reasons name each limit crossed, worst first; empty when valid.
	Reasons []string
}

// String is the one line the result table ends with.
func (r Result) String() string {
	if len(r.Reasons) == 0 {
		return string(r.Verdict)
	}
	return string(r.Verdict) + ": " + strings.Join(r.Reasons, "; ")
}

// Judge gives the verdict for m under t: the worst verdict of any single
// measurement, with every crossed limit as a reason.
func Judge(m Measurements, t Thresholds) Result {
	var invalid, degraded []string
	check := func(v float64, l Limit, what string, unit func(float64) string) {
		switch {
		case l.Invalid > 0 && v > l.Invalid:
			invalid = append(invalid, fmt.Sprintf("%s %s > %s", what, unit(v), unit(l.Invalid)))
		case l.Degraded > 0 && v > l.Degraded:
			degraded = append(degraded, fmt.Sprintf("%s %s > %s", what, unit(v), unit(l.Degraded)))
		}
	}
	pct := func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }
	ms := func(v float64) string { return fmt.Sprintf("%.3g ms", v) }
	check(m.CPUShare(), t.CPUShare, fmt.Sprintf("client CPU (of %d cores)", m.Cores), pct)
	check(msOf(m.SchedLatencyP99), t.SchedLatencyMs, "Go scheduler latency p99", ms)
	check(msOf(m.DispatchLagP99), t.DispatchLagMs, "dispatch lag p99", ms)
	if m.TargetRate > 0 && !math.IsInf(m.TargetRate, 1) && m.AchievedRate > 0 {
		short := 1 - m.AchievedRate/m.TargetRate
		check(short, t.RateShortfall, fmt.Sprintf("achieved rate %.4g of %.4g req/s: shortfall", m.AchievedRate, m.TargetRate), pct)
	}
	if m.InFlightWanted > 0 && m.InFlightHeld > 0 && m.InFlightHeld < m.InFlightWanted {
		// A closed loop that could not hold its load measured a smaller
		// one under the bigger one's name: no figure of it stands.
		invalid = append(invalid, fmt.Sprintf("held at most %d of %d requests in flight", m.InFlightHeld, m.InFlightWanted))
	}
	switch {
	case len(invalid) > 0:
		return Result{Verdict: Invalid, Reasons: append(invalid, degraded...)}
	case len(degraded) > 0:
		return Result{Verdict: Degraded, Reasons: degraded}
	}
	return Result{Verdict: Valid}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Values are the measurements by name, in the units their names carry:
// the keys of the result's self_check object and of the Prometheus
// exporter's self-check gauges.
func (m *Measurements) Values() map[string]float64 {
	v := map[string]float64{
		"wall_seconds":         m.Wall.Seconds(),
		"cpu_seconds":          m.CPU.Seconds(),
		"cpu_utilization":      m.CPUShare(),
		"cores":                float64(m.Cores),
		"sched_latency_p99_ms": msOf(m.SchedLatencyP99),
		"dispatch_lag_p99_ms":  msOf(m.DispatchLagP99),
		"achieved_rate":        m.AchievedRate,
		"events":               float64(m.Events),
		"events_per_second":    m.EventsPerSecond(),
		"connections_opened":   float64(m.Connections),
	}
	if m.TargetRate > 0 && !math.IsInf(m.TargetRate, 1) {
		v["target_rate"] = m.TargetRate
	}
	if m.InFlightWanted > 0 {
		v["in_flight_wanted"] = float64(m.InFlightWanted)
		if m.InFlightHeld > 0 {
			v["in_flight_held"] = float64(m.InFlightHeld)
		}
	}
	return v
}
