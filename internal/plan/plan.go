// Package plan turns sweeps and a day's demand into a fleet plan: for
// each candidate (a swept instance type or endpoint), the replicas every
// time slot needs, the cost per month of static provisioning (the peak
// all day) and of autoscaling (replicas that follow demand with the
// delays real autoscalers have), the user-minutes a lagging fleet spends
// over the SLA's load, the cheapest candidate over the day, and the
// Kubernetes HPA and SageMaker target-tracking settings that realise it.
// The rules are in docs/plan.md.
//
// It is pure arithmetic over what the sweeps measured: it never runs a
// step, never reads a file and never guesses a capacity a sweep did not
// show. Sizing, pricing, eligibility and the notes on incomparable
// sweeps are package capacity's (Choose), called, not copied.
package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"
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

// recommend is the eligible candidate with the least autoscaled cost per
// month; ties go to fewer peak replicas, then to the earlier one.
func recommend(cands []Candidate) *Candidate {
	var best *Candidate
	for i := range cands {
		c := &cands[i]
		if !c.Eligible {
			continue
		}
		if best == nil || *c.AutoscaledCostPerMonth < *best.AutoscaledCostPerMonth ||
			(*c.AutoscaledCostPerMonth == *best.AutoscaledCostPerMonth && c.PeakReplicas < best.PeakReplicas) {
			best = c
		}
	}
	return best
}

// maxLoadRow is the sweep's step at its max load under the SLA (nil when
// none).
func maxLoadRow(s *capacity.Sweep) *capacity.Row {
	ml := s.MaxLoadUnderSLA.Load
	if ml == nil {
		return nil
	}
	for i := range s.Steps {
		if s.Steps[i].Load == *ml {
			return &s.Steps[i]
		}
	}
	return nil
}

// planCandidate sizes one candidate slot by slot and simulates its
// autoscaled fleet.
func planCandidate(in *Input, d *Demand, cfg Config) Candidate {
	cc := in.Candidate
	c := Candidate{Label: cc.Label, File: cc.File, LoadKind: cc.LoadKind, SLA: cc.SLA, Warnings: confidence(in.Sweep),
		InstancesPerEndpoint: 1, sweep: in.Sweep, Slots: []Slot{}}
	if cc.Pricing != nil {
		c.InstancesPerEndpoint = max(cc.Pricing.InstanceCount, 1)
		per := cc.Pricing.USDPerInstanceHour
		c.PricePerHour = &per
	}
	per := float64(c.InstancesPerEndpoint)
	if cc.MaxLoad != nil {
		ml, pl := round9(*cc.MaxLoad/per), round9(*cc.MaxLoad*cfg.TargetUtilisation/per)
		c.MaxLoadUnderSLA, c.PlannedLoadPerReplica = &ml, &pl
	}
	// The need's unit: users, except a request-rate sweep, whose capacity
	// is in requests per second (compare's --need-rps rule).
	rateSweep := cc.LoadKind == capacity.RequestRate
	if rateSweep && d.Unit == Users {
		c.Reason = "swept request rates: plan it with a demand in requests per second (time,requests_per_s)"
		return c
	}
	row := maxLoadRow(in.Sweep)
	if !cc.MeetsSLA || cc.MaxLoad == nil || row == nil {
		// No load met the SLA: nothing to size with, and no step to take
		// Little's law from; compare's reason says why.
		c.Reason = capacity.Choose([]capacity.Candidate{cc}, capacity.Need{Users: 1}).Candidates[0].Reason
		return c
	}
	if d.Unit == RequestsPerS {
		c.LittlesLaw = &LittlesLaw{MeanE2ELMs: row.MeanE2ELMs, ThinkTimeS: row.MeanThinkS, AtLoad: row.Load}
		if !(c.LittlesLaw.seconds() > 0) {
			c.Reason = "the sweep has no mean E2EL at its max load under the SLA: requests per second cannot be turned into users"
			return c
		}
	}
	needOf := func(v float64) capacity.Need {
		switch {
		case rateSweep:
			return capacity.Need{RPS: v}
		case d.Unit == RequestsPerS:
			return capacity.Need{Users: v * c.LittlesLaw.seconds()}
		}
		return capacity.Need{Users: v}
	}
	// Eligibility and the reason are compare's, for the peak.
	peak := capacity.Choose([]capacity.Candidate{cc}, needOf(d.Slots[d.Peak()].Value)).Candidates[0]
	c.Eligible, c.Reason = peak.Eligible, peak.Reason
	if peak.Capacity == nil {
		c.Eligible = false
		return c
	}
	c.capaPerUnit, c.plannedUnit = *cc.MaxLoad, round9(*cc.MaxLoad*cfg.TargetUtilisation)
	c.endpointCost = cc.USDPerHour
	c.minUnits = (cfg.MinReplicas + c.InstancesPerEndpoint - 1) / c.InstancesPerEndpoint
	// Each slot is sized by compare's rule on a candidate whose capacity
	// is the planned load: ceil(need ÷ planned load) swept endpoints.
	planned := cc
	planned.MaxLoad = &c.plannedUnit
	units := make([]int, len(d.Slots))
	for i, s := range d.Slots {
		if s.Value > 0 {
			sized := capacity.Choose([]capacity.Candidate{planned}, needOf(s.Value)).Candidates[0]
			if sized.Instances != nil {
				units[i] = *sized.Instances / c.InstancesPerEndpoint
			}
		}
		units[i] = max(units[i], c.minUnits)
		sl := Slot{Time: clock(s.Minute), Minutes: d.Length(i), Users: s.Value, Replicas: units[i] * c.InstancesPerEndpoint}
		if d.Unit == RequestsPerS {
			v := s.Value
			sl.RequestsPerS = &v
			sl.Users = s.Value * c.LittlesLaw.seconds()
		}
		if c.endpointCost != nil {
			h := float64(units[i]) * *c.endpointCost
			sl.CostPerHour = &h
		}
		c.Slots = append(c.Slots, sl)
	}
	peakUnits, minUnits := slices.Max(units), slices.Min(units)
	c.PeakReplicas, c.MinReplicas = peakUnits*c.InstancesPerEndpoint, minUnits*c.InstancesPerEndpoint
	// Overrun is counted in users: a rate's excess × the time each request
	// stays (Little's law).
	toUsers := 1.0
	demand := make([]float64, len(c.Slots))
	for i := range c.Slots {
		demand[i] = c.Slots[i].Users
		if rateSweep {
			demand[i], toUsers = d.Slots[i].Value, c.LittlesLaw.seconds()
		}
	}
	f := simulate(d, demand, units, c.capaPerUnit, toUsers, cfg)
	c.AutoscaledReplicaHoursPerDay = f.unitHours * float64(c.InstancesPerEndpoint)
	for i := range c.Slots {
		c.Slots[i].SLAOverrunUserMinutes = round6(f.overrun[i])
		c.SLAOverrunUserMinutes += f.overrun[i]
	}
	c.SLAOverrunUserMinutes = round6(c.SLAOverrunUserMinutes)
	if c.endpointCost != nil {
		ph := float64(peakUnits) * *c.endpointCost
		st := ph * capacity.HoursPerMonth
		au := f.unitHours * *c.endpointCost * capacity.HoursPerMonth / 24
		c.PeakCostPerHour, c.StaticCostPerMonth, c.AutoscaledCostPerMonth = &ph, &st, &au
	}
	return c
}

// round9 drops the float error of a product (0.8 × 8 is
// 6.4000000000000004) so that 6.4 prints and sizes as 6.4.
func round9(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// round6 rounds to micro-units so that sums of per-second figures print
// the same on every machine.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// confidence lists the doubts about a sweep's max load under the SLA: a
// lower bound (no load failed), a gap the ladder left unresolved
// (capacity.NextProbe could still split it), steps the client limited,
// and a Little's-law cross-check that failed at that load.
func confidence(s *capacity.Sweep) []string {
	w := []string{}
	ml := s.MaxLoadUnderSLA
	if ml.Load != nil && len(s.SLA) > 0 {
		load := fnum(*ml.Load)
		if ml.FirstFailingLoad == nil {
			w = append(w, fmt.Sprintf("its max load under the SLA (%s) is a lower bound: every load tested met the SLA, so the limit is higher and this plan may over-provision (extend the ladder)", load))
		} else if _, ok := capacity.NextProbe(*ml.Load, *ml.FirstFailingLoad, s.LoadKind); ok {
			w = append(w, fmt.Sprintf("its limit lies between %s (met the SLA) and %s (failed), unresolved: the plan uses %s and may over-provision (sweep again with --refine N)", load, fnum(*ml.FirstFailingLoad), load))
		}
		if r := maxLoadRow(s); r != nil && r.LittlesLawOff && r.LittlesLawRatio != nil {
			w = append(w, fmt.Sprintf("Little's law does not hold at its max load (ratio %.2f): its throughput or E2EL there may be unreliable", *r.LittlesLawRatio))
		}
	}
	n := 0
	for i := range s.Steps {
		if s.Steps[i].HarnessLimited {
			n++
		}
	}
	if n > 0 {
		w = append(w, fmt.Sprintf("%d step(s) were limited by the client and not counted: the capacity may be understated", n))
	}
	return w
}

// why says, in words, why best beat the other eligible candidates: when
// another is cheaper per hour at the peak, that best is cheaper over the
// day anyway, and how.
func why(best *Candidate, cands []Candidate) string {
	parts := []string{fmt.Sprintf("the least autoscaled cost over the day: $%s/month", capacity.USD(*best.AutoscaledCostPerMonth))}
	for i := range cands {
		o := &cands[i]
		if o == best || !o.Eligible {
			continue
		}
		if *o.PeakCostPerHour < *best.PeakCostPerHour {
			parts = append(parts, fmt.Sprintf("%s is cheaper per hour at the peak ($%s against $%s) but dearer over the day ($%s/month), because %s follows demand in smaller steps: $%s/hour off-peak against %s's $%s",
				o.Label, capacity.USD(*o.PeakCostPerHour), capacity.USD(*best.PeakCostPerHour), capacity.USD(*o.AutoscaledCostPerMonth),
				best.Label, capacity.USD(minCost(best)), o.Label, capacity.USD(minCost(o))))
		} else {
			parts = append(parts, fmt.Sprintf("%s would cost $%s/month", o.Label, capacity.USD(*o.AutoscaledCostPerMonth)))
		}
	}
	return strings.Join(parts, "; ")
}

// minCost is the cheapest slot's cost per hour.
func minCost(c *Candidate) float64 {
	m := math.Inf(1)
	for _, s := range c.Slots {
		m = math.Min(m, *s.CostPerHour)
	}
	return m
}

// summary is the plan in plain words.
func summary(p *Plan, best *Candidate) string {
	var parts []string
	if best == nil {
		parts = append(parts, "no candidate can be recommended")
	} else {
		parts = append(parts, fmt.Sprintf("recommended: %s, autoscaled from %d to %d replicas, $%s/month (static at the peak: $%s/month; autoscaling saves %.0f %%)",
			best.Label, best.MinReplicas, best.PeakReplicas, capacity.USD(*best.AutoscaledCostPerMonth), capacity.USD(*best.StaticCostPerMonth),
			100*(1 - *best.AutoscaledCostPerMonth / *best.StaticCostPerMonth)))
		if best.SLAOverrunUserMinutes > 0 {
			parts = append(parts, fmt.Sprintf("while it scales up, %s user-minutes a day run over the SLA's load (raise --min-replicas or lower --target-utilisation to avoid them)", fnum(math.Round(best.SLAOverrunUserMinutes*10)/10)))
		} else {
			parts = append(parts, "the lagging fleet never runs over the SLA's load")
		}
	}
	for i := range p.Candidates {
		c := &p.Candidates[i]
		if !c.Eligible && c.Reason != "" {
			parts = append(parts, c.Label+": "+c.Reason)
		}
	}
	return strings.Join(parts, "; ") + "."
}
