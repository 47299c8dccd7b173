package htmlreport

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/plan"
	"github.com/llmbench/llmbench/internal/table"
)

// planFile reads path as a plan file (what "llmbench plan" saves, told by
// its "kind"); ok is false for any other content, which Load then reads.
// Only the head of a file is read to tell: records files can be large,
// and a plan file names its kind first.
func planFile(path string) (p *plan.Plan, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil // Load reports unreadable files
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if !bytes.Contains(head[:n], []byte(plan.Kind)) {
		return nil, false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil || !plan.IsPlan(data) {
		return nil, false, nil
	}
	p, err = plan.Read(data)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	return p, true, nil
}

// planSection is the plan page: the plan in words, the candidates with
// their costs, the autoscaler settings, demand against capacity over the
// day with the replica steps, replicas and cost per hour over the day for
// every candidate, and the slots in a table.
func planSection(path string, p *plan.Plan) Section {
	s := Section{Kind: "plan", Title: "Plan: " + filepath.Base(path), Files: []string{path}, Verdict: p.Summary}
	st := &p.Settings
	s.Notes = append(s.Notes, fmt.Sprintf("Demand: %s (%d slots in %s, peak %s at %s).", p.Demand.Source, p.Demand.Slots, p.Demand.Unit, fmtG(p.Demand.Peak), p.Demand.PeakTime),
		fmt.Sprintf("Rules: replicas = ceil(demand ÷ (max load under the SLA × %g)), at least %d; a new replica serves %s s after it is ordered and is billed from the order; one is removed after demand stayed low for %s s; a month is %s hours.",
			st.TargetUtilisation, st.MinReplicas, fmtG(st.ScaleUpDelayS), fmtG(st.ScaleDownDelayS), fmtG(st.HoursPerMonth)))
	if r := p.Recommendation; r != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("Why %s: %s.", r.Label, r.Why))
	}
	for i := range p.Candidates {
		if l := p.Candidates[i].LittlesLaw; l != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("Little's law for %s: users = requests/s × (mean E2EL %.1f ms + think time %s s), from its step at load %s.",
				p.Candidates[i].Label, l.MeanE2ELMs, fmtG(l.ThinkTimeS), fmtG(l.AtLoad)))
		}
	}
	s.Notes = append(s.Notes, p.Notes...)
	s.Tables = append(s.Tables, *plan.CandidatesTable(p, true))
	if t, ok := planSettingsTable(p); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = PlanCharts(p)
	if t := plan.SlotsTable(p, true); t != nil {
		s.After = append(s.After, *t)
	}
	return s
}

// planSettingsTable is the autoscaler settings that realise the
// recommendation; false without one.
func planSettingsTable(p *plan.Plan) (table.Table, bool) {
	if p.HPA == nil || p.SageMaker == nil {
		return table.Table{}, false
	}
	h, sm := p.HPA, p.SageMaker
	tt := &sm.PutScalingPolicy.TargetTrackingScalingPolicyConfiguration
	t := newTable("Autoscaler settings for "+h.Label, "Setting", "Value")
	for _, r := range [][2]string{
		{"Kubernetes HPA averageValue (requests in flight per pod)", fmtG(h.AverageValue)},
		{"… where a whole number is needed (rounded down)", strconv.Itoa(h.AverageValueInteger)},
		{"HPA minReplicas – maxReplicas", fmt.Sprintf("%d – %d", h.MinReplicas, h.MaxReplicas)},
		{"HPA scaleDown stabilizationWindowSeconds", strconv.Itoa(h.ScaleDownStabilizationWindowSeconds)},
		{"SageMaker target: invocations per instance per minute", fmtG(sm.TargetInvocationsPerInstancePerMinute)},
		{"SageMaker min – max capacity", fmt.Sprintf("%d – %d", sm.MinCapacity, sm.MaxCapacity)},
		{"SageMaker ScaleInCooldown / ScaleOutCooldown (s)", fmt.Sprintf("%d / %d", tt.ScaleInCooldown, tt.ScaleOutCooldown)},
	} {
		t.Rows = append(t.Rows, []table.Cell{table.Words(r[0]), table.Figure(r[1])})
	}
	return t, true
}

// plannedCandidates are the candidates with slots (those with a capacity
// under the SLA).
func plannedCandidates(p *plan.Plan) []*plan.Candidate {
	var out []*plan.Candidate
	for i := range p.Candidates {
		if len(p.Candidates[i].Slots) > 0 {
			out = append(out, &p.Candidates[i])
		}
	}
	return out
}

// PlanCharts are the plan page's charts: for each planned candidate
// (the recommended first), demand against the capacity of its replicas
// over the day; then every candidate's replicas and cost per hour over
// the day.
func PlanCharts(p *plan.Plan) []Chart {
	planned := plannedCandidates(p)
	if len(planned) == 0 {
		return nil
	}
	color := map[string]int{}
	for i, c := range planned {
		color[c.Label] = i % 6
	}
	order := append([]*plan.Candidate(nil), planned...)
	if r := p.Recommendation; r != nil {
		for i, c := range order {
			if c.Label == r.Label && i > 0 {
				order = append([]*plan.Candidate{c}, append(order[:i:i], order[i+1:]...)...)
				break
			}
		}
	}
	// A lone point at (0, 0) draws nothing but starts the axes at zero, so
	// steps read as proportions (gonum fits the axes to the data).
	origin := Series{XY: [][2]float64{{0, 0}}}
	var out []Chart
	for _, c := range order {
		ch := Chart{ID: "plan-capacity-" + chartID(c.Label), Title: "Demand vs capacity: " + c.Label, XLabel: "time of day (h)", YLabel: "concurrent users",
			Caption: fmt.Sprintf("The demand (black) against what %s's replicas hold slot by slot: at the max load under the SLA (solid; demand above it runs over the SLA) and at the planned load, %s per replica (dashed), the level the autoscaler aims for. Each step of the capacity lines is a replica added or removed (counts in the replicas chart and the table below).",
				c.Label, optG(c.PlannedLoadPerReplica)),
			Series: []Series{
				{Name: "demand (users)", XY: stepXY(c.Slots, func(s *plan.Slot) float64 { return s.Users }), Color: 6},
				{Name: "capacity at the SLA", XY: stepXY(c.Slots, func(s *plan.Slot) float64 { return float64(s.Replicas) * *c.MaxLoadUnderSLA }), Color: color[c.Label]},
				{Name: "planned capacity", XY: stepXY(c.Slots, func(s *plan.Slot) float64 { return float64(s.Replicas) * *c.PlannedLoadPerReplica }), Color: color[c.Label], Dashed: true},
				origin,
			}}
		out = append(out, ch)
	}
	reps := Chart{ID: "plan-replicas", Title: "Replicas over the day", XLabel: "time of day (h)", YLabel: "replicas",
		Caption: "Replicas each candidate needs slot by slot (the autoscaler's target; it adds them a scale-up delay late and removes them a scale-down delay late)."}
	cost := Chart{ID: "plan-cost", Title: "Cost per hour over the day", XLabel: "time of day (h)", YLabel: "USD per hour",
		Caption: "What each candidate's replicas cost hour by hour: the area under a line is its day's cost; a candidate cheap at the peak can still cost more over the day when it cannot step down off-peak."}
	for _, c := range planned {
		reps.Series = append(reps.Series, Series{Name: c.Label, XY: stepXY(c.Slots, func(s *plan.Slot) float64 { return float64(s.Replicas) }), Color: color[c.Label]})
		if c.Slots[0].CostPerHour != nil {
			cost.Series = append(cost.Series, Series{Name: c.Label, XY: stepXY(c.Slots, func(s *plan.Slot) float64 { return *s.CostPerHour }), Color: color[c.Label]})
		}
	}
	reps.Series = append(reps.Series, origin)
	out = append(out, reps)
	if len(cost.Series) > 0 {
		cost.Series = append(cost.Series, origin)
		out = append(out, cost)
	}
	return out
}

// stepXY draws slots as steps over the day in hours: each slot's value
// from its start to the next slot's (the last to 24:00), and, when the
// first slot starts after midnight, the last slot's value from 00:00.
func stepXY(slots []plan.Slot, value func(*plan.Slot) float64) [][2]float64 {
	var xy [][2]float64
	start := func(i int) float64 { return hourOf(slots[i].Time) }
	if first := start(0); first > 0 {
		v := value(&slots[len(slots)-1])
		xy = append(xy, [2]float64{0, v}, [2]float64{first, v})
	}
	for i := range slots {
		end := 24.0
		if i+1 < len(slots) {
			end = start(i + 1)
		}
		v := value(&slots[i])
		xy = append(xy, [2]float64{start(i), v}, [2]float64{end, v})
	}
	return xy
}

// hourOf is HH:MM in hours.
func hourOf(hhmm string) float64 {
	h, m, _ := strings.Cut(hhmm, ":")
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	return float64(hh) + float64(mm)/60
}

// chartID keeps a label's letters and digits for an HTML id.
func chartID(label string) string {
	b := []byte(label)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func optG(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmtG(*v)
}
