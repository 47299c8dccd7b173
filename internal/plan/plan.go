// Package plan turns sweeps and a day's demand into a fleet plan: for
// each candidate (a swept instance type or endpoint), the replicas every
// time slot needs, the cost per month of static provisioning (the peak
// all day) and of autoscaling (replicas that follow demand with the
// delays real autoscalers have), the user-minutes a lagging fleet spends
// over the SLA's load, the cheapest candidate over the day, and the
// Kubernetes HPA and SageMaker target-tracking settings that realise it.
// The rules are in docs/plan.md.
//
// Make is pure arithmetic over what the sweeps measured: it never runs a
// step, never reads a file (inputs.go and request.go read the demand
// curve and the sweeps for it) and never guesses a capacity a sweep did
// not show. Sizing, pricing, eligibility and the notes on incomparable
// sweeps are package capacity's (Choose), called, not copied.
package plan

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
)

// DefaultTargetUtilisation is the fraction of the max load under the SLA
// a replica is planned to carry: the 20 % headroom of
// deploy/k8s/hpa-example.yaml, which absorbs demand that rises while a
// new replica starts.
const DefaultTargetUtilisation = 0.8

// Config is how the plan sizes and scales.
type Config struct {
	// TargetUtilisation is the planned load per replica as a fraction of
	// its max load under the SLA, in (0, 1]; 0 = DefaultTargetUtilisation.
	TargetUtilisation float64
	// MinReplicas is the floor of every slot's replicas (0 allows scaling
	// to zero).
	MinReplicas int
	// ScaleUpDelay is how long a replica ordered by the autoscaler takes
	// to serve (launch, image pull, model load); it is billed from the
	// order. ScaleDownDelay is how long demand must stay low before a
	// replica is removed (HPA's scale-down stabilisation window). Zero is
	// no delay; both must be under a day.
	ScaleUpDelay, ScaleDownDelay time.Duration
	// EndpointName and Variant name the SageMaker endpoint in the
	// target-tracking settings; "" = DefaultEndpointName, DefaultVariant.
	EndpointName, Variant string
}

// Input is one candidate: its figures at the max load under the SLA (as
// capacity.CandidateOf or report.SweepCandidates make them) and the sweep
// they came from.
type Input struct {
	Candidate capacity.Candidate
	Sweep     *capacity.Sweep
}

// LittlesLaw is the conversion of arrivals to concurrent users, users =
// requests per second × (E2EL + think time), with the figures used: the
// mean E2EL and think time of the sweep's step at its max load under the
// SLA, the load the plan runs replicas near.
type LittlesLaw struct {
	MeanE2ELMs float64 `json:"mean_e2el_ms"`
	ThinkTimeS float64 `json:"think_time_s"`
	// AtLoad is the step the figures are from.
	AtLoad float64 `json:"at_load"`
}

// seconds is the time a user spends per request, E2EL plus think time.
func (l *LittlesLaw) seconds() float64 { return l.MeanE2ELMs/1000 + l.ThinkTimeS }

// Slot is one time slot of a candidate's plan.
type Slot struct {
	// Time is the slot's start, HH:MM; Minutes its length.
	Time    string `json:"time"`
	Minutes int    `json:"minutes"`
	// Users is the demand in concurrent users (from requests per second
	// by Little's law when the demand was given so).
	Users float64 `json:"users"`
	// RequestsPerS is the demand as given, when given in requests per
	// second; absent otherwise.
	RequestsPerS *float64 `json:"requests_per_s,omitempty"`
	// Replicas is what the slot needs: ceil(demand ÷ planned load per
	// replica), at least the minimum.
	Replicas int `json:"replicas"`
	// CostPerHour is those replicas' price per hour; null unpriced.
	CostPerHour *float64 `json:"cost_per_hour"`
	// SLAOverrunUserMinutes is how many user-minutes of this slot the
	// autoscaled fleet, lagging demand, carried beyond its replicas' max
	// load under the SLA.
	SLAOverrunUserMinutes float64 `json:"sla_overrun_user_minutes"`
}

// Candidate is one candidate's plan over the day.
type Candidate struct {
	Label    string        `json:"label"`
	File     string        `json:"file,omitempty"`
	LoadKind capacity.Kind `json:"load_kind"`
	SLA      string        `json:"sla"`
	// MaxLoadUnderSLA is one replica's max load under the SLA (the
	// sweep's, divided by its instance count); null when never met.
	MaxLoadUnderSLA *float64 `json:"max_load_under_sla"`
	// PlannedLoadPerReplica is MaxLoadUnderSLA × the target utilisation.
	PlannedLoadPerReplica *float64 `json:"planned_load_per_replica"`
	// PricePerHour is one replica's (instance's) price; null unpriced.
	PricePerHour *float64 `json:"price_per_hour"`
	// InstancesPerEndpoint is the sweep's instance count: replicas come
	// in multiples of it.
	InstancesPerEndpoint int `json:"instances_per_endpoint"`
	// LittlesLaw is set when the demand was in requests per second.
	LittlesLaw *LittlesLaw `json:"littles_law,omitempty"`
	// PeakReplicas and MinReplicas are the most and fewest replicas any
	// slot needs.
	PeakReplicas int `json:"peak_replicas"`
	MinReplicas  int `json:"min_replicas"`
	// PeakCostPerHour is PeakReplicas' price per hour.
	PeakCostPerHour *float64 `json:"peak_cost_per_hour"`
	// StaticCostPerMonth is PeakReplicas all month;
	// AutoscaledCostPerMonth is the replicas billed by the autoscaler
	// (lagging demand by the delays) over the day, × 730 ÷ 24.
	StaticCostPerMonth     *float64 `json:"static_cost_per_month"`
	AutoscaledCostPerMonth *float64 `json:"autoscaled_cost_per_month"`
	// AutoscaledReplicaHoursPerDay is what the autoscaled fleet bills a
	// day, in replica-hours.
	AutoscaledReplicaHoursPerDay float64 `json:"autoscaled_replica_hours_per_day"`
	// SLAOverrunUserMinutes is the day's sum over the slots.
	SLAOverrunUserMinutes float64 `json:"sla_overrun_user_minutes"`
	// Eligible is true when the candidate can be recommended; otherwise
	// Reason says why not.
	Eligible bool   `json:"eligible"`
	Reason   string `json:"reason,omitempty"`
	// Warnings are doubts about the sweep's own max load.
	Warnings []string `json:"warnings"`
	Slots    []Slot   `json:"slots"`

	// Fields the settings need, not saved.
	sweep        *capacity.Sweep `json:"-"`
	capaPerUnit  float64         // max load under the SLA per swept endpoint, in the need's unit
	plannedUnit  float64         // planned load per swept endpoint
	endpointCost *float64        // one swept endpoint's $/hour
	minUnits     int
}

// Recommendation is the candidate that carries the day's demand for the
// least autoscaled cost.
type Recommendation struct {
	Label                  string  `json:"label"`
	PeakReplicas           int     `json:"peak_replicas"`
	MinReplicas            int     `json:"min_replicas"`
	AutoscaledCostPerMonth float64 `json:"autoscaled_cost_per_month"`
	StaticCostPerMonth     float64 `json:"static_cost_per_month"`
	// Why says why it beat the others, in words.
	Why string `json:"why"`
}

// DemandInfo describes the demand the plan was made for.
type DemandInfo struct {
	Source string `json:"source"`
	Unit   Unit   `json:"unit"`
	Slots  int    `json:"slots"`
	// Peak is the highest slot's demand, in Unit, at PeakTime.
	Peak     float64 `json:"peak"`
	PeakTime string  `json:"peak_time"`
}

// Settings are the plan's rules as applied.
type Settings struct {
	TargetUtilisation float64 `json:"target_utilisation"`
	MinReplicas       int     `json:"min_replicas"`
	ScaleUpDelayS     float64 `json:"scale_up_delay_s"`
	ScaleDownDelayS   float64 `json:"scale_down_delay_s"`
	HoursPerMonth     float64 `json:"hours_per_month"`
}

// Plan is the answer: the content of plan-*.json.
type Plan struct {
	Demand         DemandInfo      `json:"demand"`
	Settings       Settings        `json:"settings"`
	Candidates     []Candidate     `json:"candidates"`
	Recommendation *Recommendation `json:"recommendation"`
	// HPA and SageMaker realise the recommendation; null without one.
	HPA       *HPA       `json:"hpa"`
	SageMaker *SageMaker `json:"sagemaker"`
	Summary   string     `json:"summary"`
	Notes     []string   `json:"notes"`
}

// Make plans the day's demand on every candidate and recommends the one
// with the least autoscaled cost per month among those capacity.Choose
// finds eligible (met an SLA, priced, a load kind the demand can use);
// ties go to fewer peak replicas, then to the earlier candidate.
func Make(in []Input, d Demand, cfg Config) (*Plan, error) {
	if cfg.TargetUtilisation == 0 {
		cfg.TargetUtilisation = DefaultTargetUtilisation
	}
	switch {
	case !(cfg.TargetUtilisation > 0 && cfg.TargetUtilisation <= 1):
		return nil, fmt.Errorf("target utilisation %v: want more than 0, at most 1", cfg.TargetUtilisation)
	case cfg.MinReplicas < 0:
		return nil, fmt.Errorf("min replicas %d: want 0 or more", cfg.MinReplicas)
	case cfg.ScaleUpDelay < 0 || cfg.ScaleUpDelay >= 24*time.Hour || cfg.ScaleDownDelay < 0 || cfg.ScaleDownDelay >= 24*time.Hour:
		return nil, fmt.Errorf("scale-up and scale-down delays must be from 0 to under 24h")
	case len(in) == 0:
		return nil, fmt.Errorf("no sweeps to plan with")
	case len(d.Slots) == 0:
		return nil, fmt.Errorf("the demand has no slots")
	}
	pk := d.Peak()
	if !(d.Slots[pk].Value > 0) {
		return nil, fmt.Errorf("the demand is zero all day: nothing to plan")
	}
	p := &Plan{
		Demand: DemandInfo{Source: d.Source, Unit: d.Unit, Slots: len(d.Slots), Peak: d.Slots[pk].Value, PeakTime: clock(d.Slots[pk].Minute)},
		Settings: Settings{TargetUtilisation: cfg.TargetUtilisation, MinReplicas: cfg.MinReplicas,
			ScaleUpDelayS: cfg.ScaleUpDelay.Seconds(), ScaleDownDelayS: cfg.ScaleDownDelay.Seconds(), HoursPerMonth: capacity.HoursPerMonth},
		Notes: []string{},
	}
	cands := make([]capacity.Candidate, len(in))
	for i := range in {
		cands[i] = in[i].Candidate
		p.Candidates = append(p.Candidates, planCandidate(&in[i], &d, cfg))
	}
	// compare's caveats over the same candidates: different SLAs or load
	// kinds make capacities incomparable whatever the need.
	p.Notes = append(p.Notes, capacity.Choose(cands, capacity.Need{Users: 1}).Notes...)
	for i := range p.Candidates {
		for _, w := range p.Candidates[i].Warnings {
			p.Notes = append(p.Notes, p.Candidates[i].Label+": "+w)
		}
	}
	best := recommend(p.Candidates)
	if best != nil {
		p.Recommendation = &Recommendation{Label: best.Label, PeakReplicas: best.PeakReplicas, MinReplicas: best.MinReplicas,
			AutoscaledCostPerMonth: *best.AutoscaledCostPerMonth, StaticCostPerMonth: *best.StaticCostPerMonth,
			Why: why(best, p.Candidates)}
		p.HPA = hpaFor(best, cfg)
		p.SageMaker = sageMakerFor(best, cfg)
	}
	p.Summary = summary(p, best)
	return p, nil
}
