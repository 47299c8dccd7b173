package stats

import "sort"

// PercentileRanks returns the 0-based ranks, among n sorted values, of the
// exact distribution-free confidence interval of the q-quantile (q in
// (0, 1)) at confidence conf, as GuideLLM reports it. With B ~
// Binomial(n, q) (how many of n draws fall below the true quantile) and
// α = 1 − conf:
//
//	lo = the largest k with P(B ≤ k) ≤ α/2
//	hi = the smallest k with P(B ≤ k) ≥ 1 − α/2
//
// so that P(x₍lo₎ ≤ true quantile ≤ x₍hi₎) ≥ conf whatever the
// distribution, provided the values are independent draws from one
// continuous distribution. ok is false when a rank does not exist among
// 0..n−1: the sample is too small for the interval. At 0.95, p99 needs
// n ≥ 368, p95 72 and p50 6 (see MinSamples).
//
// Vectors: n = 1000, q = 0.99 → [982, 996]; n = 72, q = 0.95 → [63, 71];
// n = 71 → no hi; n = 200, q = 0.95 → [183, 196].
func PercentileRanks(n int, q, conf float64) (lo, hi int, ok bool) {
	if n < 1 || !(q > 0 && q < 1) || !validConf(conf) {
		return 0, 0, false
	}
	half := (1 - conf) / 2
	// P(B ≤ k) grows with k: lo is one below the first k whose lower tail
	// exceeds α/2.
	lo = sort.Search(n, func(k int) bool { return BinomialCDF(k, n, q) > half }) - 1
	// hi is the first k whose upper tail P(B > k) is at most α/2, i.e.
	// P(B ≤ k) ≥ 1 − α/2; the upper tail keeps its precision near α/2.
	hi = sort.Search(n, func(k int) bool { return binomialSF(k, n, q) <= half })
	if lo < 0 || hi >= n {
		return 0, 0, false
	}
	return lo, hi, true
}

// PercentileCI is the exact distribution-free interval of the q-quantile
// of sorted (ascending) values at confidence conf: the values at
// PercentileRanks. ok is false when the sample is too small for it.
func PercentileCI(sorted []float64, q, conf float64) (low, high float64, ok bool) {
	lo, hi, ok := PercentileRanks(len(sorted), q, conf)
	if !ok {
		return 0, 0, false
	}
	return sorted[lo], sorted[hi], true
}

// MinSamples is the smallest n for which PercentileRanks(n, q, conf)
// exists: the smallest n with 1 − q^n ≥ 1 − α/2 and (1−q)^n ≤ α/2, i.e.
// both the top and the bottom value are far enough out. E.g. 368 for
// q = 0.99 at 0.95, 72 for 0.95, 6 for 0.5. 0 when q or conf is out of
// range.
func MinSamples(q, conf float64) int {
	if !(q > 0 && q < 1) || !validConf(conf) {
		return 0
	}
	n := 1
	for {
		if _, _, ok := PercentileRanks(n, q, conf); ok {
			return n
		}
		// Grow fast, then settle on the exact n by bisection.
		if n > 1<<30 {
			return 0
		}
		next := n * 2
		if _, _, ok := PercentileRanks(next, q, conf); ok {
			lo, hi := n, next // lo fails, hi works
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if _, _, ok := PercentileRanks(mid, q, conf); ok {
					hi = mid
				} else {
					lo = mid
				}
			}
			return hi
		}
		n = next
	}
}
