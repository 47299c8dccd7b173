package htmlreport

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// planTwo is a plan file made by "llmbench plan" from two real sweeps
// (internal/plan/testdata: a batch of 8 at $2/h and of 32, priced here at
// $6.50/h) for a diurnal day peaking at 40 users:
//
//	llmbench plan sweep-sim-batch8.json sweep-sim-batch32.json --peak-users 40 --price-per-hour 2,6.5 --format json
var planTwo = filepath.Join("testdata", "plan-two.json")

// TestPlanPage: a plan file gives a plan section: the plan in words, the
// candidates with their costs, the autoscaler settings, demand against
// capacity for each candidate (the recommended first) with the replica
// steps, replicas and cost per hour over the day, and the slots.
func TestPlanPage(t *testing.T) {
	t.Parallel()
	p, err := Build([]string{planTwo}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 1 || p.Sections[0].Kind != "plan" {
		t.Fatalf("sections %+v", p.Sections)
	}
	s := p.Sections[0]
	var ids []string
	for _, c := range s.Charts {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); got != "plan-capacity-sim-batch8 plan-capacity-sim-batch32 plan-replicas plan-cost" {
		t.Errorf("charts %s", got)
	}
	// At 14:00 (40 users) sim-batch8 runs 7 replicas of 8 users each.
	capa := s.Charts[0].Series[1].XY
	if capa[28] != [2]float64{14, 56} || capa[29] != [2]float64{15, 56} {
		t.Errorf("capacity at 14:00: %v %v, want 56 from 14 to 15 h", capa[28], capa[29])
	}
	golden(t, "plan.golden", pageData(t, p))
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section class="plan"`, `data-chart="plan-cost"`, "RECOMMENDED", "is cheaper per hour at the peak ($13.00 against $14.00)"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// A plan beside a sweep: each gets its own section, in order.
	p, err = Build([]string{planTwo, filepath.Join("testdata", "sweep-synthetic.json")}, Options{})
	if err != nil || len(p.Sections) != 2 || p.Sections[0].Kind != "plan" || p.Sections[1].Kind != "sweep" {
		t.Errorf("plan and sweep: %v %+v", err, p)
	}
}

// TestStepXY: slots become steps over 0-24 h, the last wrapping to
// midnight when the first starts later.
func TestStepXY(t *testing.T) {
	t.Parallel()
	p, err := Build([]string{planTwo}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &p.Sections[0]
	xy := c.Charts[2].Series[0].XY // sim-batch8's replicas
	if len(xy) != 48 || xy[0] != [2]float64{0, 1} || xy[47] != [2]float64{24, 2} {
		t.Errorf("replicas %v", xy)
	}
}
