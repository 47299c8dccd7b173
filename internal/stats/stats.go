// Package stats holds the confidence arithmetic behind llmbench's
// decisions: exact distribution-free intervals on percentiles, Student-t
// intervals on means and over repeated runs, Wilson intervals on shares,
// the Mann–Whitney U test over runs, a seeded bootstrap of the difference
// of a statistic between two samples, and inference-perf's plateau test
// for the knee of a sweep. docs/confidence.md explains each interval, what
// it assumes and when it is null.
//
// Every function is pure: no I/O, no clock, no global random source (the
// bootstrap takes its seed), so a result recomputed from the same data
// gives the same interval. It refuses to invent an interval it cannot
// justify: where the data are too few (a p99 over fewer than 368 values,
// a t interval over one run, a rank test with fewer than MinRuns runs a
// side) the functions say so with ok == false instead of returning a
// guess. It knows nothing about results, records or metrics names; the
// callers map figures onto these functions.
package stats

import (
	"math"
)

// DefaultConfidence is the confidence level llmbench reports intervals
// at unless told otherwise.
const DefaultConfidence = 0.95

// validConf reports whether conf is a usable confidence level.
func validConf(conf float64) bool {
	return conf > 0 && conf < 1
}

// NormalQuantile is the standard normal distribution's quantile function
// Φ⁻¹(p) for p in (0, 1); ±Inf at 0 and 1, NaN outside.
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// Quantile is the q-quantile (q in [0, 1]) of sorted, ascending values by
// linear interpolation between closest ranks: NumPy's default method, the
// one vLLM's percentiles use (h = q·(n−1)). NaN when sorted is empty.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	f := h - float64(lo)
	return sorted[lo] + f*(sorted[lo+1]-sorted[lo])
}

// Mean is the arithmetic mean of values; NaN when empty.
func Mean(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range values {
		s += v
	}
	return s / float64(len(values))
}

// StdDev is the sample standard deviation (n − 1 in the denominator) of
// values; NaN with fewer than two.
func StdDev(values []float64) float64 {
	n := len(values)
	if n < 2 {
		return math.NaN()
	}
	m := Mean(values)
	ss := 0.0
	for _, v := range values {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(n-1))
}
