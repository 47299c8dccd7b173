package plan

// One candidate over the day (planCandidate), the choice among them
// (recommend, why) and the plan's words (confidence, summary), for Make
// (plan.go).

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
)

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
