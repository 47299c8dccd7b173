package stats

import (
	"math"
	"slices"
)

// RunsByKey is Runs of each figure over K runs, one map of figures per
// run: a figure's values are those of the runs that reported it (NaN
// left out). Figures with fewer than two values are absent; nil with
// fewer than two runs.
func RunsByKey(runs []map[string]float64, conf float64) map[string]RunStats {
	if len(runs) < 2 {
		return nil
	}
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r {
			keys[k] = true
		}
	}
	out := map[string]RunStats{}
	for k := range keys {
		var vals []float64
		for _, r := range runs {
			if v, ok := r[k]; ok && !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		if rs, ok := Runs(vals, conf); ok {
			out[k] = rs
		}
	}
	return out
}

// MinAutoRuns is how many runs "--runs auto" makes before it first
// checks the intervals (AIPerf's rule: a t interval over two runs, with
// t = 12.7, says almost nothing).
const MinAutoRuns = 3

// Convergence is the record of a "--runs auto" repetition: the width
// asked for, the cap, how many runs were made, and whether every
// deciding figure's t interval came out narrower than CIWidth × |mean|.
type Convergence struct {
	Mode       string          `json:"mode"`
	CIWidth    float64         `json:"ci_width"`
	MaxRuns    int             `json:"max_runs"`
	Runs       int             `json:"runs"`
	Converged  bool            `json:"converged"`
	Statistics []ConvergedStat `json:"statistics"`
}

// ConvergedStat is one deciding figure's interval over the runs so far.
type ConvergedStat struct {
	Key  string  `json:"key"`
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// RelativeWidth is (High − Low)/|Mean|: 0 for an interval of no
	// width, null when the mean is 0 and the width is not, or fewer
	// than two runs reported the figure.
	RelativeWidth *float64 `json:"relative_width"`
	Converged     bool     `json:"converged"`
}

// Converge judges K runs' figures for "--runs auto --ci-width width
// --max-runs maxRuns" on the figures keys (in that order): converged when
// there are at least MinAutoRuns runs and every key's t interval (at
// DefaultConfidence) is narrower than width × |mean| — an interval of no
// width counts, whatever the mean (every run gave the same value). Keys
// no run reported are left out. done is converged or K ≥ maxRuns: the
// caller makes another run only while done is false.
func Converge(runs []map[string]float64, keys []string, width float64, maxRuns int) (c Convergence, done bool) {
	c = Convergence{Mode: "auto", CIWidth: width, MaxRuns: maxRuns, Runs: len(runs), Converged: len(runs) >= MinAutoRuns}
	rs := RunsByKey(runs, DefaultConfidence)
	for _, k := range keys {
		if !slices.ContainsFunc(runs, func(r map[string]float64) bool { _, ok := r[k]; return ok }) {
			continue
		}
		st := ConvergedStat{Key: k}
		if r, ok := rs[k]; ok {
			st.Mean, st.Low, st.High = r.Mean, r.Low, r.High
			st.RelativeWidth, st.Converged = within(r, width)
		}
		c.Converged = c.Converged && st.Converged
		c.Statistics = append(c.Statistics, st)
	}
	return c, c.Converged || len(runs) >= maxRuns
}

// within is r's relative width and whether it is under width.
func within(r RunStats, width float64) (*float64, bool) {
	w := r.High - r.Low
	if w == 0 {
		z := 0.0
		return &z, true
	}
	if r.Mean == 0 {
		return nil, false
	}
	rel := r.RelativeWidth()
	return &rel, rel < width
}
