package capacity

import (
	"math"
	"testing"
)

// TestPrice checks the cost figures against the formula by hand: the
// endpoint's hourly price spread over an hour at the step's throughput.
func TestPrice(t *testing.T) {
	t.Parallel()
	s := analyze(t, Concurrency, "p99_ttft_ms<500", a100...)
	s.Price(&Pricing{InstanceCount: 3, USDPerInstanceHour: 2, Source: "--price-per-hour"})
	for i := range s.Steps {
		r := &s.Steps[i]
		x := r.OutputThroughput / outLen // the synthetic steps' req/s
		if *r.USDPerHour != 6 || !near(*r.USDPerRequest, 6/(x*3600)) || !near(*r.USDPer1MOutputTokens, 6e6/(r.OutputThroughput*3600)) {
			t.Errorf("load %v: $/h %v $/req %v $/1M %v", r.Load, *r.USDPerHour, *r.USDPerRequest, *r.USDPer1MOutputTokens)
		}
	}
	a := s.AtSLA
	if a == nil || a.Load != 100 || !near(a.MaxInvocationsPerMinute, 60*3100.0/outLen) || !near(*a.USDPer1MOutputTokens, 6e6/(3100*3600)) {
		t.Fatalf("at SLA %+v", a)
	}
	s.Price(nil)
	if s.Pricing != nil || s.Steps[0].USDPerHour != nil || s.AtSLA.USDPerHour != nil {
		t.Error("Price(nil) left cost figures")
	}
	// Nothing completed: no per-request or per-token figure, only $/h.
	var r Row
	r.price(&Pricing{InstanceCount: 1, USDPerInstanceHour: 1})
	if r.USDPerHour == nil || r.USDPerRequest != nil || r.USDPer1MOutputTokens != nil {
		t.Errorf("idle step: %v %v %v", r.USDPerHour, r.USDPerRequest, r.USDPer1MOutputTokens)
	}
	// No load met the SLA: no at-SLA figures.
	if s := analyze(t, Concurrency, "p99_ttft_ms<40", a100...); s.AtSLA != nil {
		t.Errorf("at SLA %+v for a sweep that never met it", s.AtSLA)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
