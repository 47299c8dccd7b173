package selfcheck

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	light := Measurements{Wall: 10 * time.Second, CPU: 2 * time.Second, Cores: 2,
		SchedLatencyP99: 200 * time.Microsecond, DispatchLagP99: time.Millisecond, TargetRate: 10, AchievedRate: 10}
	with := func(f func(m *Measurements)) Measurements { m := light; f(&m); return m }
	tests := []struct {
		name    string
		m       Measurements
		want    Verdict
		reasons []string // substrings, in order
	}{
		{"light run: every figure well inside", light, Valid, nil},
		{"nothing measured judges nothing", Measurements{}, Valid, nil},
		{"busy client CPU degrades", with(func(m *Measurements) { m.CPU = 15 * time.Second }), Degraded, []string{"client CPU (of 2 cores) 75% > 70%"}},
		{"saturated client CPU invalidates", with(func(m *Measurements) { m.CPU = 19 * time.Second }), Invalid, []string{"client CPU"}},
		{"scheduler latency of several ms degrades", with(func(m *Measurements) { m.SchedLatencyP99 = 8 * time.Millisecond }), Degraded, []string{"scheduler latency p99 8 ms > 5 ms"}},
		{"scheduler latency of a hundred ms invalidates", with(func(m *Measurements) { m.SchedLatencyP99 = 100 * time.Millisecond }), Invalid, []string{"scheduler latency p99 100 ms > 50 ms"}},
		{"dispatch lag degrades", with(func(m *Measurements) { m.DispatchLagP99 = 30 * time.Millisecond }), Degraded, []string{"dispatch lag p99 30 ms"}},
		{"rate shortfall of 10% degrades", with(func(m *Measurements) { m.AchievedRate = 9 }), Degraded, []string{"shortfall 10% > 5%"}},
		{"rate shortfall of half invalidates", with(func(m *Measurements) { m.AchievedRate = 5 }), Invalid, []string{"shortfall 50% > 20%"}},
		{"an infinite rate is not judged", with(func(m *Measurements) { m.TargetRate, m.AchievedRate = math.Inf(1), 1 }), Valid, nil},
		{"invalid reasons come before degraded ones", with(func(m *Measurements) {
			m.SchedLatencyP99, m.DispatchLagP99 = 100*time.Millisecond, 30*time.Millisecond
		}), Invalid, []string{"scheduler", "dispatch lag"}},
		{"exactly at a limit is still inside", with(func(m *Measurements) { m.SchedLatencyP99 = 5 * time.Millisecond }), Valid, nil},
		{"a closed loop held at a quarter of its users invalidates", with(func(m *Measurements) { m.InFlightWanted, m.InFlightHeld = 16, 4 }), Invalid, []string{"held at most 4 of 16 requests in flight"}},
		{"a closed loop that held all its users is valid", with(func(m *Measurements) { m.InFlightWanted, m.InFlightHeld = 16, 16 }), Valid, nil},
		{"an in-flight count not measured is not judged", with(func(m *Measurements) { m.InFlightWanted = 16 }), Valid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Judge(tt.m, DefaultThresholds)
			if got.Verdict != tt.want {
				t.Fatalf("verdict %q, want %q (%s)", got.Verdict, tt.want, got)
			}
			if len(got.Reasons) != len(tt.reasons) {
				t.Fatalf("reasons %q, want %d like %q", got.Reasons, len(tt.reasons), tt.reasons)
			}
			for i, sub := range tt.reasons {
				if !strings.Contains(got.Reasons[i], sub) {
					t.Errorf("reason %d = %q, want it to contain %q", i, got.Reasons[i], sub)
				}
			}
		})
	}
}

func TestResultString(t *testing.T) {
	t.Parallel()
	if s := (Result{Verdict: Valid}).String(); s != "valid" {
		t.Errorf("%q", s)
	}
	r := Result{Verdict: Degraded, Reasons: []string{"a", "b"}}
	if s := r.String(); s != "degraded: a; b" {
		t.Errorf("%q", s)
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	m := Measurements{Wall: 2 * time.Second, CPU: time.Second, Cores: 2, Events: 1000, TargetRate: math.Inf(1)}
	v := m.Values()
	if v["cpu_utilization"] != 0.25 || v["events_per_second"] != 500 {
		t.Errorf("values %v", v)
	}
	if _, ok := v["target_rate"]; ok {
		t.Errorf("an infinite target rate must be left out: %v", v)
	}
}
