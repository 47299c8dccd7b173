package capacity

import (
	"math"
	"testing"

	"github.com/llmbench/llmbench/internal/cost"
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

// TestPricingOf: a sweep's pricing from the cost flags, none without a
// price, the count at least 1, the table's error passed on.
func TestPricingOf(t *testing.T) {
	tests := []struct {
		name    string
		in      cost.Instance
		want    *Pricing
		wantErr bool
	}{
		{"no price", cost.Instance{Count: 3}, nil, false},
		{"table", cost.Instance{Type: "ml.g5.2xlarge", Count: 2}, &Pricing{InstanceType: "ml.g5.2xlarge", InstanceCount: 2, USDPerInstanceHour: 1.515, Source: cost.SourceTable}, false},
		{"flag, count 0", cost.Instance{PricePerHour: 4}, &Pricing{InstanceCount: 1, USDPerInstanceHour: 4, Source: cost.SourceFlag}, false},
		{"unknown type", cost.Instance{Type: "ml.x9.huge", Count: 1}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PricingOf(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("PricingOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}
