package plan

import (
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/table"
)

// TextStyle is the console layout of the plan's tables: every cell right
// of its column, two spaces before each (text/tabwriter's AlignRight, as
// the plan was first printed).
var TextStyle = table.Style{Lead: "  ", Right: true}

// CandidatesTable is one row per candidate with its day's costs and a
// verdict. The console (page false) says "not eligible"; the HTML page
// says why, and marks the recommendation pass and the ineligible fail.
func CandidatesTable(p *Plan, page bool) *table.Table {
	per := "Planned/replica"
	if page {
		per = "Planned / replica"
	}
	t := &table.Table{Title: "Candidates"}
	for _, c := range [][2]string{
		{"label", "Candidate"}, {"max_load_under_sla", "Max load under SLA"}, {"planned_load_per_replica", per},
		{"price_per_hour", "$/hour"}, {"peak_replicas", "Peak replicas"}, {"min_replicas", "Min replicas"},
		{"peak_cost_per_hour", "Peak $/hour"}, {"static_cost_per_month", "Static $/month"},
		{"autoscaled_cost_per_month", "Autoscaled $/month"}, {"sla_overrun_user_minutes", "Overrun user-min/day"},
		{"verdict", "Verdict"},
	} {
		align := table.Right
		if c[0] == "label" {
			align = table.Left
		}
		t.AddColumn(c[0], c[1], align)
	}
	for i := range p.Candidates {
		c := &p.Candidates[i]
		verdict := table.Figure("ok")
		switch {
		case p.Recommendation != nil && p.Recommendation.Label == c.Label:
			verdict = table.Cell{Text: "RECOMMENDED", Mark: table.Pass}
		case !c.Eligible && page:
			verdict = table.Cell{Text: c.Reason, Mark: table.Fail}
		case !c.Eligible:
			verdict = table.Cell{Text: "not eligible", Mark: table.Fail}
		}
		rep, minRep, over := table.Figure("-"), table.Figure("-"), table.Figure("-")
		if len(c.Slots) > 0 {
			rep = table.Number(strconv.Itoa(c.PeakReplicas), float64(c.PeakReplicas))
			minRep = table.Number(strconv.Itoa(c.MinReplicas), float64(c.MinReplicas))
			over = table.Number(fmt.Sprintf("%.1f", c.SLAOverrunUserMinutes), c.SLAOverrunUserMinutes)
		}
		t.Rows = append(t.Rows, []table.Cell{table.Words(c.Label), optNum(c.MaxLoadUnderSLA), optNum(c.PlannedLoadPerReplica),
			optMoney(c.PricePerHour), rep, minRep, optMoney(c.PeakCostPerHour), optMoney(c.StaticCostPerMonth),
			optMoney(c.AutoscaledCostPerMonth), over, verdict})
	}
	return t
}

// SlotsTable is the day slot by slot for the candidates with slots. The
// console (page false) shows the demand in its unit and each candidate's
// replicas with the slot's overrun user-minutes in brackets; the HTML
// page shows users (and requests/s when the demand was given so) and a
// candidate's replicas, cost per hour and overrun in columns of their
// own. Nil when no candidate has slots.
func SlotsTable(p *Plan, page bool) *table.Table {
	var planned []*Candidate
	for i := range p.Candidates {
		if len(p.Candidates[i].Slots) > 0 {
			planned = append(planned, &p.Candidates[i])
		}
	}
	if len(planned) == 0 {
		return nil
	}
	t := &table.Table{Title: "Replicas per slot"}
	t.AddColumn("time", "Time", table.Left)
	if !page {
		t.AddColumn(string(p.Demand.Unit), string(p.Demand.Unit), table.Right)
		for _, c := range planned {
			t.AddColumn(c.Label, c.Label, table.Right)
		}
		for i, s := range planned[0].Slots {
			v := s.Users
			if s.RequestsPerS != nil {
				v = *s.RequestsPerS
			}
			row := []table.Cell{table.Words(s.Time), table.Number(fnum(v), v)}
			for _, c := range planned {
				cell := strconv.Itoa(c.Slots[i].Replicas)
				if o := c.Slots[i].SLAOverrunUserMinutes; o > 0 {
					cell += fmt.Sprintf(" (%.1f)", o)
				}
				row = append(row, table.Figure(cell))
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	}
	t.AddColumn("users", "Users", table.Right)
	rps := planned[0].Slots[0].RequestsPerS != nil
	if rps {
		t.AddColumn("requests_per_s", "Requests/s", table.Right)
	}
	for _, c := range planned {
		t.AddColumn(c.Label+" replicas", c.Label+" replicas", table.Right)
		t.AddColumn(c.Label+" cost_per_hour", c.Label+" $/hour", table.Right)
		t.AddColumn(c.Label+" sla_overrun_user_minutes", c.Label+" overrun user-min", table.Right)
	}
	for i, sl := range planned[0].Slots {
		row := []table.Cell{table.Words(sl.Time), table.Number(fmt.Sprintf("%.1f", sl.Users), sl.Users)}
		if rps {
			row = append(row, table.Number(fnum(*sl.RequestsPerS), *sl.RequestsPerS))
		}
		for _, c := range planned {
			cs := &c.Slots[i]
			row = append(row, table.Number(strconv.Itoa(cs.Replicas), float64(cs.Replicas)), optMoney(cs.CostPerHour),
				table.Number(fmt.Sprintf("%.1f", cs.SLAOverrunUserMinutes), cs.SLAOverrunUserMinutes))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// optNum is a figure in its shortest form, "-" when unknown.
func optNum(v *float64) table.Cell {
	if v == nil {
		return table.Figure("-")
	}
	return table.Number(fnum(*v), *v)
}

// optMoney is USD with two decimals and thousands separators, "-" when
// unknown.
func optMoney(v *float64) table.Cell {
	if v == nil {
		return table.Figure("-")
	}
	return table.Number(capacity.USD(*v), *v)
}
