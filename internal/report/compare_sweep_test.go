package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
)

// writeSweep saves a small concurrency sweep that meets its SLA up to ml
// (0 = never) at 50 output tok/s per user, priced at usd per hour (0 =
// unpriced), and returns its path.
func writeSweep(t *testing.T, dir, label string, ml, usd float64, util bool) string {
	t.Helper()
	sla, err := capacity.ParseSLA("p90_ttft_ms<300")
	if err != nil {
		t.Fatal(err)
	}
	s := &capacity.Sweep{Label: label, LoadKind: capacity.Concurrency, SLA: sla}
	for _, l := range []float64{2, 4, 8} {
		pass := ml > 0 && l <= ml
		// A real step's shape: every figure in metrics, the named
		// fields copies of some (capacity.RowFrom).
		r := capacity.Row{Load: l, LoadKind: capacity.Concurrency, Runs: 1, Completed: 16, RequestThroughput: l / 2,
			OutputThroughput: 50 * l, MeanPerUserTPS: 50, P10PerUserTPS: 45, SLAPass: &pass,
			Metrics: map[string]float64{"error_rate": 0, "request_throughput": l / 2, "output_throughput": 50 * l,
				"mean_per_user_tps": 50, "p10_per_user_tps": 45}}
		if util {
			cpu, gpu := 10+l, 10*l
			r.Utilization = &capacity.Utilization{CPUPct: &cpu, GPUPct: &gpu, Normalized: true, Minutes: 1}
		}
		s.Steps = append(s.Steps, r)
	}
	if ml > 0 {
		s.MaxLoadUnderSLA.Load = &ml
	}
	if usd > 0 {
		s.Price(&capacity.Pricing{InstanceCount: 1, USDPerInstanceHour: usd, Source: "--price-per-hour"})
	}
	var buf bytes.Buffer
	if err := capacity.WriteJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sweep-"+label+"-concurrency-20260101-000000.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestChoiceGolden: the compare table and JSON over three sweeps: a small
// cheap instance, a large one that is cheaper per user, and one that
// never meets the SLA; 20 users need ceil(20/4) = 5 × $1 or ceil(20/8) =
// 3 × $1.5: the large one.
func TestChoiceGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []*SweepFile
	for _, p := range []string{
		writeSweep(t, dir, "small", 4, 1, false),
		writeSweep(t, dir, "large", 8, 1.5, true),
		writeSweep(t, dir, "never", 0, 0.5, false),
	} {
		s, err := capacity.ReadSweep(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, &SweepFile{Path: filepath.Base(p), Sweep: s}) // base name: stable goldens
	}
	ch := capacity.Choose(SweepCandidates(files), capacity.Need{Users: 20})
	if r := ch.Recommendation; r == nil || r.Label != "large" || r.Instances != 3 || r.CostPerHour != 4.5 {
		t.Fatalf("recommendation %+v", r)
	}
	var txt, js bytes.Buffer
	if err := WriteChoiceTable(&txt, ch); err != nil {
		t.Fatal(err)
	}
	if err := WriteChoiceJSON(&js, ch); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare/sweeps-need-users.golden", txt.Bytes())
	golden(t, "compare/sweeps-need-users.json", js.Bytes())
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := back["candidates"].([]any); !ok {
		t.Errorf("no candidates list: %s", js.String())
	}
	txt.Reset()
	if err := WriteChoiceTable(&txt, capacity.Choose(SweepCandidates(files), capacity.Need{})); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare/sweeps-no-need.golden", txt.Bytes())
}
