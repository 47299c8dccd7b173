package servermetrics

import (
	"math"
	"slices"
	"time"
)

// tpoint is a series' value(s) at one scrape: the time the scrape was
// sent (Prometheus' convention: a scrape's samples carry its start time).
type tpoint struct {
	t    time.Time
	vals []float64
}

// cumulative is a counter or a histogram (one value per bucket, then
// count and sum) as the collector keeps it: reset-adjusted, and pruned to
// the points the window's edges need.
//
// Reset handling is Prometheus' (increase(), rate()): when a value drops
// below the previous scrape's, the process restarted and counted from
// zero, so everything counted before the drop is added back. Example:
// scrapes 100, 130, 5, 25 adjust to 100, 130, 135, 155: an increase of 55.
//
// A histogram's _sum may legitimately fall (negative observations);
// Prometheus treats it like the counts, and so does this.
type cumulative struct {
	lastRaw []float64
	offset  []float64
	pts     []tpoint
}

// add appends one scrape's raw values. A series whose shape changed (a
// histogram with other buckets) starts over.
func (c *cumulative) add(t time.Time, raw []float64) {
	if len(c.lastRaw) != len(raw) {
		c.lastRaw, c.offset, c.pts = nil, make([]float64, len(raw)), nil
	} else {
		for i, v := range raw {
			if v < c.lastRaw[i] {
				c.offset[i] += c.lastRaw[i]
			}
		}
	}
	c.lastRaw = slices.Clone(raw)
	adj := make([]float64, len(raw))
	for i, v := range raw {
		adj[i] = v + c.offset[i]
	}
	c.pts = append(c.pts, tpoint{t: t, vals: adj})
}

// prune drops points no window edge needs once the window's start is
// known (mark): the increase over [start, end] is the difference of the
// interpolated values at the two edges, and reset adjustment already
// carried everything in between. Kept: the last point at or before mark,
// the first after it, and the last three (the end's bracket is among them:
// Stop scrapes once after the end).
func (c *cumulative) prune(mark time.Time) {
	if len(c.pts) <= 5 {
		return
	}
	n := len(c.pts)
	keep := make([]tpoint, 0, 5)
	if mark.IsZero() {
		c.pts = append(keep, c.pts[n-3:]...)
		return
	}
	first := -1 // first point after mark
	for i, p := range c.pts {
		if p.t.After(mark) {
			first = i
			break
		}
	}
	switch {
	case first < 0:
		keep = append(keep, c.pts[n-1])
	case first == 0:
		keep = append(keep, c.pts[0])
		if n-3 > 0 {
			keep = append(keep, c.pts[max(1, n-3):]...)
		}
	default:
		keep = append(keep, c.pts[first-1], c.pts[first])
		keep = append(keep, c.pts[max(first+1, n-3):]...)
	}
	c.pts = keep
}

// at returns the adjusted values at t, interpolated linearly between the
// scrapes either side; before the first scrape or after the last it is
// that scrape's values (no extrapolation). nil without points.
func at(pts []tpoint, t time.Time) []float64 {
	if len(pts) == 0 {
		return nil
	}
	i, _ := slices.BinarySearchFunc(pts, t, func(p tpoint, t time.Time) int { return p.t.Compare(t) })
	switch {
	case i < len(pts) && pts[i].t.Equal(t):
		return pts[i].vals
	case i == 0:
		return pts[0].vals
	case i == len(pts):
		return pts[len(pts)-1].vals
	}
	a, b := pts[i-1], pts[i]
	f := float64(t.Sub(a.t)) / float64(b.t.Sub(a.t))
	out := make([]float64, len(a.vals))
	for k := range a.vals {
		out[k] = a.vals[k] + (b.vals[k]-a.vals[k])*f
	}
	return out
}

// increase is the growth of each value over [start, end], interpolated at
// both edges: a counter read at 10 s (100) and 20 s (200) has grown by 50
// over [15 s, 20 s].
func (c *cumulative) increase(start, end time.Time) []float64 {
	a, b := at(c.pts, start), at(c.pts, end)
	if a == nil {
		return nil
	}
	out := make([]float64, len(a))
	for i := range a {
		out[i] = max(b[i]-a[i], 0)
	}
	return out
}

// histQuantile is Prometheus' histogram_quantile over bucket increases:
// the rank q*total falls in the first bucket whose cumulative count reaches
// it, and the value is interpolated linearly inside that bucket (from 0 for
// the first bucket when its bound is positive). A rank in the +Inf bucket
// gives the largest finite bound. Worked example (the vector):
// increases {0.025: 0, 0.05: 35, 0.1: 50, +Inf: 50}; p50: rank 25 lies in
// (0.025, 0.05], 0.025 + 0.025*(25-0)/(35-0) = 0.042857; p99: rank 49.5 in
// (0.05, 0.1], 0.05 + 0.05*(49.5-35)/(50-35) = 0.098333. NaN without
// observations. Counts that fall between buckets (interpolation at the
// window's edges) are made monotonic first, as Prometheus does.
func histQuantile(les, cum []float64, q float64) float64 {
	if len(les) < 2 || len(cum) != len(les) || !math.IsInf(les[len(les)-1], 1) {
		return math.NaN()
	}
	c := slices.Clone(cum)
	for i := 1; i < len(c); i++ {
		c[i] = max(c[i], c[i-1])
	}
	total := c[len(c)-1]
	if total == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	if q <= 0 {
		return math.Inf(-1)
	}
	if q >= 1 {
		return math.Inf(1)
	}
	rank := q * total
	b := 0
	for b < len(c)-1 && c[b] < rank {
		b++
	}
	if b == len(c)-1 {
		return les[len(les)-2]
	}
	if b == 0 && les[0] <= 0 {
		return les[0]
	}
	lo, before := 0.0, 0.0
	if b > 0 {
		lo, before = les[b-1], c[b-1]
	}
	return lo + (les[b]-lo)*(rank-before)/(c[b]-before)
}

// gaugeStats are the statistics of a gauge's samples in the window.
type gaugeStats struct {
	mean, min, max, p50, p99 float64
}

// statsOf summarises values (at least one): mean, extremes, and the 50th
// and 99th percentiles with linear interpolation between closest ranks
// (NumPy's default, as vLLM's percentiles).
func statsOf(values []float64) gaugeStats {
	s := slices.Clone(values)
	slices.Sort(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return gaugeStats{mean: sum / float64(len(s)), min: s[0], max: s[len(s)-1],
		p50: linearPercentile(s, 50), p99: linearPercentile(s, 99)}
}

// linearPercentile is NumPy's percentile (method "linear") of sorted.
func linearPercentile(sorted []float64, p float64) float64 {
	pos := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (sorted[lo+1]-sorted[lo])*(pos-float64(lo))
}

// inWindow returns the points whose time lies in [start, end].
func inWindow(pts []tpoint, start, end time.Time) []tpoint {
	var out []tpoint
	for _, p := range pts {
		if !p.t.Before(start) && !p.t.After(end) {
			out = append(out, p)
		}
	}
	return out
}
