package capacity

import (
	"math"

	"github.com/llmbench/llmbench/internal/cost"
)

// HoursPerMonth is the month cost figures use: 730 hours, AWS's own
// convention (8,760 hours a year ÷ 12).
const HoursPerMonth = 730

// Pricing is what the swept endpoint costs to run: InstanceCount
// instances at USDPerInstanceHour each. It is saved in the sweep file so
// that compare can price candidates without asking again.
type Pricing struct {
	// InstanceType is informational ("" when only a price was given).
	InstanceType string `json:"instance_type,omitempty"`
	// InstanceCount is how many instances served the sweep (>= 1); every
	// load, capacity and cost of the sweep is for all of them together.
	InstanceCount int `json:"instance_count"`
	// USDPerInstanceHour is one instance-hour's price.
	USDPerInstanceHour float64 `json:"usd_per_instance_hour"`
	// Source says where the price came from (--price-per-hour or the
	// built-in table).
	Source string `json:"source"`
}

// USDPerHour is what the swept endpoint costs per hour: the price of an
// instance-hour times the instance count (at least 1).
func (p *Pricing) USDPerHour() float64 {
	return p.USDPerInstanceHour * float64(max(p.InstanceCount, 1))
}

// Utilization is the endpoint's instance utilisation over a window, as
// CloudWatch publishes it in /aws/sagemaker/Endpoints, averaged over the
// window's minutes. Each figure is null when no datapoint covered the
// window (GPU figures on a CPU instance, or CloudWatch's lag).
type Utilization struct {
	// CPUPct, GPUPct and GPUMemoryPct are percent of the whole instance
	// (0-100) when Normalized; else AWS's raw sums over cores or GPUs
	// (0 to 100 × cores or GPUs).
	CPUPct       *float64 `json:"cpu_pct"`
	GPUPct       *float64 `json:"gpu_pct"`
	GPUMemoryPct *float64 `json:"gpu_memory_pct"`
	// MemoryPct and DiskPct are percent of the instance's memory and
	// disk (0-100) as AWS publishes them.
	MemoryPct *float64 `json:"memory_pct"`
	DiskPct   *float64 `json:"disk_pct"`
	// Normalized says CPU and GPU figures were divided by the instance's
	// vCPU and GPU counts.
	Normalized bool `json:"normalized"`
	// Minutes is how many one-minute datapoints the figures average.
	Minutes int `json:"minutes"`
	// Note explains anything the reader must know (window shorter than
	// CloudWatch's one-minute resolution, figures not normalised).
	Note string `json:"note,omitempty"`
}

// AtSLA is the sweep at its largest load under the SLA: the capacity of
// one endpoint as SageMaker Inference Recommender would state it
// (MaxInvocations), but under the streaming SLA, not at a fixed latency.
type AtSLA struct {
	// Load is MaxLoadUnderSLA.Load.
	Load float64 `json:"load"`
	// RequestThroughput is the step's completed requests per second;
	// MaxInvocationsPerMinute is the same × 60.
	RequestThroughput       float64 `json:"request_throughput"`
	MaxInvocationsPerMinute float64 `json:"max_invocations_per_minute"`
	OutputThroughput        float64 `json:"output_throughput"`
	MeanPerUserTPS          float64 `json:"mean_per_user_tps"`
	P10PerUserTPS           float64 `json:"p10_per_user_tps"`
	// USDPerHour and USDPer1MOutputTokens are the step's cost figures;
	// null without pricing.
	USDPerHour           *float64 `json:"usd_per_hour"`
	USDPer1MOutputTokens *float64 `json:"usd_per_1m_output_tokens"`
	// Utilization is the step's; null when not read.
	Utilization *Utilization `json:"utilization"`
	// InFlight is the requests in flight per instance at Load: the load
	// itself for a concurrency sweep, else Little's law, request
	// throughput × mean E2EL (users spend their think time outside).
	InFlight float64 `json:"in_flight"`
	// HPATargetInFlight is a Kubernetes HPA's averageValue for requests
	// in flight per pod: ScaleOutAt × InFlight, rounded
	// (deploy/k8s/hpa-example.yaml: 0.8 × 96 ≈ 77).
	HPATargetInFlight float64 `json:"hpa_target_in_flight"`
	// SageMakerInvocationsTarget is a SageMaker target-tracking policy's
	// TargetValue for SageMakerVariantInvocationsPerInstance (requests
	// per instance per minute): ScaleOutAt × MaxInvocationsPerMinute,
	// rounded.
	SageMakerInvocationsTarget float64 `json:"sagemaker_invocations_per_instance_target"`
}

// ScaleOutAt is the share of the largest load under the SLA an
// autoscaler should hold each instance to: the 20 % headroom covers the
// minutes a new replica needs to start and load its weights
// (deploy/k8s/hpa-example.yaml, docs/capacity.md "Scale-out targets").
const ScaleOutAt = 0.8

// Price sets the sweep's pricing and each step's cost at its load, then
// the at-SLA figures; nil clears them. A step's cost is steady-state: the
// endpoint's hourly price spread over what it served in an hour at that
// step's throughput. Example: $1.515/h at 2.5 req/s and 320 output tok/s
// costs 1.515 / (2.5 × 3600) = $0.000168 per request and 1.515 × 10^6 /
// (320 × 3600) = $1.315 per million output tokens. (That equals the cost
// of the step's duration divided by what it completed.)
func (s *Sweep) Price(p *Pricing) {
	s.Pricing = p
	for i := range s.Steps {
		s.Steps[i].price(p)
	}
	s.AtSLA = atSLA(s)
}

// price sets r's cost figures from p (nil clears them).
func (r *Row) price(p *Pricing) {
	r.USDPerHour, r.USDPerRequest, r.USDPer1MOutputTokens = nil, nil, nil
	if p == nil {
		return
	}
	h := p.USDPerHour()
	r.USDPerHour = &h
	r.USDPerRequest = perHourOf(h, r.RequestThroughput, 1)
	r.USDPer1MOutputTokens = perHourOf(h, r.OutputThroughput, 1e6)
}

// perHourOf is usdPerHour spread over rate×3600 units per hour, times
// scale; nil when the rate is not positive.
func perHourOf(usdPerHour, ratePerSecond, scale float64) *float64 {
	if !(ratePerSecond > 0) || math.IsInf(ratePerSecond, 0) {
		return nil
	}
	v := usdPerHour * scale / (ratePerSecond * 3600)
	return &v
}

// atSLA collects the figures at the largest load under the SLA; nil when
// there is none.
func atSLA(s *Sweep) *AtSLA {
	ml := s.MaxLoadUnderSLA.Load
	if ml == nil {
		return nil
	}
	for i := range s.Steps {
		r := &s.Steps[i]
		if r.Load != *ml {
			continue
		}
		a := &AtSLA{Load: r.Load, RequestThroughput: r.RequestThroughput, MaxInvocationsPerMinute: 60 * r.RequestThroughput,
			OutputThroughput: r.OutputThroughput, MeanPerUserTPS: r.MeanPerUserTPS, P10PerUserTPS: r.P10PerUserTPS,
			USDPerHour: r.USDPerHour, USDPer1MOutputTokens: r.USDPer1MOutputTokens, Utilization: r.Utilization}
		a.InFlight = r.Load
		if r.LoadKind != Concurrency {
			a.InFlight = r.RequestThroughput * r.MeanE2ELMs / 1000
		}
		a.HPATargetInFlight = math.Round(ScaleOutAt * a.InFlight)
		a.SageMakerInvocationsTarget = math.Round(ScaleOutAt * a.MaxInvocationsPerMinute)
		return a
	}
	return nil
}

// meanUtilization averages the utilisation of repeated runs of one load,
// figure by figure over the runs that reported it; nil when none did.
func meanUtilization(rows []Row) *Utilization {
	var out Utilization
	n, normalized := 0, true
	var notes []string
	for i := range rows {
		u := rows[i].Utilization
		if u == nil {
			continue
		}
		n++
		normalized = normalized && u.Normalized
		out.Minutes += u.Minutes
		if u.Note != "" && !contains(notes, u.Note) {
			notes = append(notes, u.Note)
		}
	}
	if n == 0 {
		return nil
	}
	pick := []func(*Utilization) **float64{
		func(u *Utilization) **float64 { return &u.CPUPct }, func(u *Utilization) **float64 { return &u.GPUPct },
		func(u *Utilization) **float64 { return &u.GPUMemoryPct }, func(u *Utilization) **float64 { return &u.MemoryPct },
		func(u *Utilization) **float64 { return &u.DiskPct },
	}
	for _, p := range pick {
		*p(&out) = meanOf(rows, func(r *Row) *float64 {
			if r.Utilization == nil {
				return nil
			}
			return *p(r.Utilization)
		})
	}
	out.Normalized = normalized
	for i, s := range notes {
		if i > 0 {
			out.Note += "; "
		}
		out.Note += s
	}
	return &out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PricingOf is the sweep's Pricing of the instances the user priced; nil,
// nil when no price was given (cost.Instance.Price).
func PricingOf(i cost.Instance) (*Pricing, error) {
	price, source, ok, err := i.Price()
	if err != nil || !ok {
		return nil, err
	}
	return &Pricing{InstanceType: i.Type, InstanceCount: max(i.Count, 1), USDPerInstanceHour: price, Source: source}, nil
}
