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
		r := capacity.Row{Load: l, LoadKind: capacity.Concurrency, Runs: 1, Completed: 16, RequestThroughput: l / 2,
			OutputThroughput: 50 * l, MeanPerUserTPS: 50, P10PerUserTPS: 45, SLAPass: &pass}
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
		f, err := ReadSweepFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Path = filepath.Base(p) // stable goldens
		files = append(files, f)
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

func TestIsSweepFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sweep := writeSweep(t, dir, "a", 4, 1, false)
	result := filepath.Join(dir, "r.json")
	os.WriteFile(result, []byte(`{"duration": 1, "completed": 2}`), 0o644)
	appended := filepath.Join(dir, "two.json")
	os.WriteFile(appended, []byte("{\"duration\": 1}\n{\"duration\": 2}\n"), 0o644)
	for path, want := range map[string]bool{sweep: true, result: false, appended: false} {
		if got, err := IsSweepFile(path); err != nil || got != want {
			t.Errorf("IsSweepFile(%s) = %v, %v; want %v", filepath.Base(path), got, err, want)
		}
	}
	if _, err := IsSweepFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file: want an error")
	}
	if _, err := ReadSweepFile(result); err == nil {
		t.Error("a result file read as a sweep")
	}
}
