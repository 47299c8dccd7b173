package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/selfcheck"
)

// TestWriteSelfCheck: the line under the table, with its optional parts.
func TestWriteSelfCheck(t *testing.T) {
	t.Parallel()
	base := selfcheck.Measurements{Wall: 10 * time.Second, CPU: 5 * time.Second, Cores: 4, SchedLatencyP99: 1234 * time.Microsecond,
		DispatchLagP99: 500 * time.Microsecond, Events: 2000, Connections: 3}
	valid := selfcheck.Result{Verdict: selfcheck.Valid}
	const head = "Self-check: valid (client CPU 12% of 4 cores, Go scheduler latency p99 1.23 ms, dispatch lag p99 0.50 ms, 200 events/s, 3 connections opened"
	with := func(f func(m *selfcheck.Measurements)) selfcheck.Measurements { m := base; f(&m); return m }
	for _, c := range []struct {
		name         string
		v            selfcheck.Result
		m            selfcheck.Measurements
		preconnected int
		want         string
	}{
		{"the figures alone", valid, base, 0, head + ")\n"},
		{"connections opened before the run", valid, base, 4, head + ", 4 before the run)\n"},
		{"achieved against a finite target", valid, with(func(m *selfcheck.Measurements) { m.TargetRate, m.AchievedRate = 10, 9.87654 }), 0, head + ", 9.877 of 10 req/s)\n"},
		{"no rate against an infinite target", valid, with(func(m *selfcheck.Measurements) { m.TargetRate, m.AchievedRate = math.Inf(1), 50 }), 0, head + ")\n"},
		{"held in flight against wanted", valid, with(func(m *selfcheck.Measurements) { m.InFlightWanted, m.InFlightHeld = 16, 4 }), 0, head + ", 4 of 16 requests held in flight)\n"},
		{"wanted but not measured", valid, with(func(m *selfcheck.Measurements) { m.InFlightWanted = 16 }), 0, head + ")\n"},
		{"the verdict with its reasons", selfcheck.Result{Verdict: selfcheck.Degraded, Reasons: []string{"dispatch lag p99 30 ms > 10 ms"}}, base, 0,
			strings.Replace(head, "valid", "degraded: dispatch lag p99 30 ms > 10 ms", 1) + ")\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			WriteSelfCheck(&b, c.v, &c.m, c.preconnected)
			if b.String() != c.want {
				t.Errorf("got  %q\nwant %q", b.String(), c.want)
			}
		})
	}
}

// TestSelfCheckObject: verdict, reasons (a list even when there are
// none), the measurements in key order, then preconnected.
func TestSelfCheckObject(t *testing.T) {
	t.Parallel()
	m := selfcheck.Measurements{Wall: 2 * time.Second, CPU: time.Second, Cores: 1, Events: 10, Connections: 1, TargetRate: 5, AchievedRate: 4}
	for _, c := range []struct {
		name string
		v    selfcheck.Result
		want string
	}{
		{"valid: empty reasons", selfcheck.Result{Verdict: selfcheck.Valid}, `{"verdict": "valid", "reasons": [], `},
		{"invalid: its reasons", selfcheck.Result{Verdict: selfcheck.Invalid, Reasons: []string{"a", "b"}}, `{"verdict": "invalid", "reasons": ["a", "b"], `},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := SelfCheckObject(c.v, &m, 2).String()
			want := c.want + `"achieved_rate": 4.0, "connections_opened": 1.0, "cores": 1.0, "cpu_seconds": 1.0, "cpu_utilization": 0.5, ` +
				`"dispatch_lag_p99_ms": 0.0, "events": 10.0, "events_per_second": 5.0, "sched_latency_p99_ms": 0.0, "target_rate": 5.0, ` +
				`"wall_seconds": 2.0, "preconnected": 2}`
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}
