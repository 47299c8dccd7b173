package plan

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/llmbench/llmbench/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// defaults is the CLI's default configuration.
var defaults = Config{TargetUtilisation: 0.8, MinReplicas: 1, ScaleUpDelay: 5 * time.Minute, ScaleDownDelay: 15 * time.Minute}

// readSweep reads a sweep file from testdata as an Input labelled by
// the sweep's label.
func readSweep(t *testing.T, name string) Input {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var s capacity.Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return Input{Candidate: capacity.CandidateOf(s.Label, name, &s), Sweep: &s}
}

// realPlan is the plan of a real sweep of a server holding 8 streams at
// $2/h, for a diurnal day peaking at 40 users with an off-peak of 4.
func realPlan(t *testing.T) *Plan {
	t.Helper()
	d, err := Profile(Diurnal, 40, 4)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make([]Input{readSweep(t, "sweep-sim-batch8.json")}, d, defaults)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanRealSweep: the worked example on a real sweep of a
// server holding 8 streams at $2/h, for a diurnal day peaking at 40
// users with an off-peak of 4.
func TestPlanRealSweep(t *testing.T) {
	t.Parallel()
	p := realPlan(t)
	c := p.Candidates[0]
	if *c.MaxLoadUnderSLA != 8 || *c.PlannedLoadPerReplica != 6.4 {
		t.Errorf("max load %v planned %v, want 8 and 6.4", *c.MaxLoadUnderSLA, *c.PlannedLoadPerReplica)
	}
	// ceil(40 / 6.4) = 7 at the peak, ceil(4 / 6.4) = 1 off-peak.
	if c.PeakReplicas != 7 || c.MinReplicas != 1 || c.Slots[14].Replicas != 7 || c.Slots[2].Replicas != 1 {
		t.Errorf("peak %d min %d, 14:00 %d, 02:00 %d; want 7, 1, 7, 1", c.PeakReplicas, c.MinReplicas, c.Slots[14].Replicas, c.Slots[2].Replicas)
	}
	// 7 × $2 × 730 h.
	if *c.StaticCostPerMonth != 10220 || !(*c.AutoscaledCostPerMonth < 10220) {
		t.Errorf("static %v autoscaled %v, want 10220 and less", *c.StaticCostPerMonth, *c.AutoscaledCostPerMonth)
	}
	if r := p.Recommendation; r == nil || r.Label != "sim-batch8" || r.PeakReplicas != 7 {
		t.Errorf("recommendation %+v", r)
	}
	if p.HPA.AverageValue != 6.4 || p.HPA.AverageValueInteger != 6 || !strings.Contains(p.HPA.Manifest, `averageValue: "6.4"`) {
		t.Errorf("hpa %+v", p.HPA)
	}
	var js, text bytes.Buffer
	if err := WriteJSON(&js, p); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, p); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "plan-sim-batch8.json.golden", js.Bytes(), *update)
	golden.Check(t, "plan-sim-batch8.txt.golden", text.Bytes(), *update)
}
