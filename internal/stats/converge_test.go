package stats

import (
	"math"
	"testing"
)

// TestConverge: --runs auto's rule on hand-computed vectors. Three runs
// of 100, 102, 98: s = 2, se = 2/√3, t(0.95, 2) = 4.302653, so the
// interval's full width is 2·4.302653·2/√3 = 9.937, 9.94 % of the mean:
// converged at --ci-width 0.10, not at 0.09. 100, 104, 96 doubles it.
func TestConverge(t *testing.T) {
	t.Parallel()
	runs := func(key string, vals ...float64) []map[string]float64 {
		out := make([]map[string]float64, len(vals))
		for i, v := range vals {
			out[i] = map[string]float64{key: v}
		}
		return out
	}
	rel := func(n int, std, mean float64) float64 {
		return 2 * 4.302652729911275 * std / math.Sqrt(float64(n)) / mean
	}
	tests := []struct {
		name      string
		runs      []map[string]float64
		keys      []string
		width     float64
		maxRuns   int
		converged bool
		done      bool
		rel       []float64 // NaN = null
	}{
		{"two runs: never checked", runs("a", 100, 100.1), []string{"a"}, 0.10, 10, false, false, []float64{2 * 12.706204736174707 * 0.05 / 100.05}},
		{"three tight runs", runs("a", 100, 102, 98), []string{"a"}, 0.10, 10, true, true, []float64{rel(3, 2, 100)}},
		{"the same runs at 0.09", runs("a", 100, 102, 98), []string{"a"}, 0.09, 10, false, false, []float64{rel(3, 2, 100)}},
		{"wide: another run", runs("a", 100, 104, 96), []string{"a"}, 0.10, 10, false, false, []float64{rel(3, 4, 100)}},
		{"wide at --max-runs: done", runs("a", 100, 104, 96), []string{"a"}, 0.10, 3, false, true, []float64{rel(3, 4, 100)}},
		{"no width at mean 0", runs("a", 0, 0, 0), []string{"a"}, 0.10, 10, true, true, []float64{0}},
		{"spread around 0: null", runs("a", -1, 0, 1), []string{"a"}, 0.10, 10, false, false, []float64{math.NaN()}},
		{"a key no run has is left out", runs("a", 100, 102, 98), []string{"a", "b"}, 0.10, 10, true, true, []float64{rel(3, 2, 100)}},
		{"one key too wide holds the rest", []map[string]float64{{"a": 100, "b": 100}, {"a": 102, "b": 104}, {"a": 98, "b": 96}},
			[]string{"a", "b"}, 0.10, 10, false, false, []float64{rel(3, 2, 100), rel(3, 4, 100)}},
	}
	for _, tt := range tests {
		c, done := Converge(tt.runs, tt.keys, tt.width, tt.maxRuns)
		if c.Converged != tt.converged || done != tt.done || c.Runs != len(tt.runs) || c.Mode != "auto" || c.CIWidth != tt.width || c.MaxRuns != tt.maxRuns {
			t.Errorf("%s: converged %v done %v runs %d; want %v %v %d", tt.name, c.Converged, done, c.Runs, tt.converged, tt.done, len(tt.runs))
		}
		if len(c.Statistics) != len(tt.rel) {
			t.Fatalf("%s: %d statistics, want %d", tt.name, len(c.Statistics), len(tt.rel))
		}
		for i, want := range tt.rel {
			got := c.Statistics[i].RelativeWidth
			switch {
			case math.IsNaN(want) && got != nil:
				t.Errorf("%s: %s relative width %v, want null", tt.name, c.Statistics[i].Key, *got)
			case !math.IsNaN(want) && (got == nil || math.Abs(*got-want) > 1e-3*max(want, 1e-3)):
				t.Errorf("%s: %s relative width %v, want %.5f", tt.name, c.Statistics[i].Key, got, want)
			}
		}
	}
}

// TestRunsByKey: each figure over the runs that reported it; a figure
// one run reported, or NaN values, give no interval; one run gives none.
func TestRunsByKey(t *testing.T) {
	t.Parallel()
	runs := []map[string]float64{{"a": 1, "b": 5, "c": math.NaN()}, {"a": 3, "c": 2}, {"a": 5, "b": 7, "c": 4}}
	rs := RunsByKey(runs, DefaultConfidence)
	if a := rs["a"]; a.N != 3 || a.Mean != 3 || a.Std != 2 {
		t.Errorf("a = %+v, want n 3, mean 3, std 2", a)
	}
	if b := rs["b"]; b.N != 2 || b.Mean != 6 || math.Abs(b.TCrit-12.706204736174707) > 1e-9 {
		t.Errorf("b = %+v, want n 2, mean 6, t 12.706", b)
	}
	if c := rs["c"]; c.N != 2 || c.Mean != 3 {
		t.Errorf("c = %+v, want the NaN left out: n 2, mean 3", c)
	}
	if rs := RunsByKey(runs[:1], DefaultConfidence); rs != nil {
		t.Errorf("one run: %v, want nil", rs)
	}
	if rs := RunsByKey([]map[string]float64{{"a": 1}, {"b": 2}}, DefaultConfidence); len(rs) != 0 {
		t.Errorf("no figure in two runs: %v, want none", rs)
	}
}
