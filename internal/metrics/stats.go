package metrics

import (
	"math"
	"math/bits"
	"slices"
)

// Stats are one metric's statistics in milliseconds, computed the way vLLM
// computes them with NumPy (see describe).
type Stats struct {
	// Metric is the metric's key name, e.g. "ttft" or "dispatch_lag".
	Metric string
	// N is the number of values the statistics cover (0 = none; then every
	// statistic is 0.0, as vLLM's "list or 0" makes them).
	N int
	// Mean, Median and Std (population) in milliseconds.
	Mean, Median, Std float64
	// Percentiles are in milliseconds, one per Summary.Percentiles entry.
	Percentiles []float64
}

// describe computes NumPy-compatible statistics of values (seconds) and
// returns them in milliseconds (×1000 after the statistic, like vLLM).
// It reorders values in place (partial selection instead of a full sort),
// so the caller must pass a slice it owns.
func describe(metric string, values []float64, percentiles []float64) Stats {
	return describeSegs(metric, [][]float64{values}, len(values), percentiles, true)
}

// radixMin is the list length from which describeSegs finds order
// statistics by radix selection over the segments instead of selecting in
// a concatenated copy. A variable so tests can force either path.
var radixMin = 1 << 20

// describeSegs is describe over the concatenation of segs (n values in
// all), e.g. every request's ITL list, without building the concatenation
// when it is large. owned means segs is a single slice the caller lets us
// reorder.
//
// Mean and std use NumPy's pairwise summation over the values in list
// order; the selection runs afterwards, because the summation order
// decides the last bits. Percentiles use NumPy's default "linear" method:
//
//	h = (n-1)·p/100, lo = floor(h), hi = min(lo+1, n-1), g = h-lo
//	g < 0.5: x[lo] + (x[hi]-x[lo])·g     else: x[hi] - (x[hi]-x[lo])·(1-g)
//
// e.g. n=4 sorted {1,2,3,10}, p=99: h=2.97, g=0.97, 10-(10-3)·0.03 = 9.79.
// The median is np.median's: the middle value, or the mean of the two.
// An empty list is treated as the single value 0, so everything is 0.0.
func describeSegs(metric string, segs [][]float64, n int, percentiles []float64, owned bool) Stats {
	st := Stats{Metric: metric, N: n, Percentiles: make([]float64, len(percentiles))}
	if n == 0 {
		return st
	}
	mean := segSum(segs, n) / float64(n)
	st.Mean = mean * 1000
	st.Std = math.Sqrt(segSumSqDev(segs, n, mean)/float64(n)) * 1000

	// Order statistics needed: the two middle values for the median and
	// the two neighbours of every percentile's virtual index.
	ranks := make([]int, 0, 2+2*len(percentiles))
	ranks = append(ranks, (n-1)/2, n/2)
	type pos struct {
		lo, hi int
		g      float64
	}
	ps := make([]pos, len(percentiles))
	for i, p := range percentiles {
		lo, hi, g := pctIndex(n, p)
		ps[i] = pos{lo, hi, g}
		ranks = append(ranks, lo, hi)
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	at := orderStats(segs, n, ranks, owned)

	if n%2 == 1 {
		st.Median = at(n/2) * 1000
	} else {
		// np.median: the mean of the two middle values.
		st.Median = (at(n/2-1) + at(n/2)) / 2 * 1000
	}
	for i, q := range ps {
		st.Percentiles[i] = lerp(at(q.lo), at(q.hi), q.g) * 1000
	}
	return st
}

// orderStats finds the values of ranks (sorted, unique) in the
// concatenation of segs and returns a lookup for them.
func orderStats(segs [][]float64, n int, ranks []int, owned bool) func(rank int) float64 {
	var x []float64
	switch {
	case owned && len(segs) == 1:
		x = segs[0]
	case n < radixMin:
		x = make([]float64, 0, n)
		for _, s := range segs {
			x = append(x, s...)
		}
	default:
		vals := radixOrderStats(segs, ranks)
		return func(r int) float64 {
			i, _ := slices.BinarySearch(ranks, r)
			return vals[i]
		}
	}
	selectRanks(x, ranks)
	return func(r int) float64 { return x[r] }
}

// segSum is pairwiseSum over the concatenation of segs without building
// it: the recursion visits leaves left to right, so a cursor feeds each
// leaf block (at most 128 values) in list order.
func segSum(segs [][]float64, n int) float64 {
	if len(segs) == 1 {
		return pairwiseSum(segs[0])
	}
	c := cursor{segs: segs}
	return c.pairwise(n, func(b []float64) float64 { return pairwiseSum(b) })
}

// segSumSqDev is pairwiseSumSqDev over the concatenation of segs.
func segSumSqDev(segs [][]float64, n int, mean float64) float64 {
	if len(segs) == 1 {
		return pairwiseSumSqDev(segs[0], mean)
	}
	c := cursor{segs: segs}
	return c.pairwise(n, func(b []float64) float64 { return pairwiseSumSqDev(b, mean) })
}

// cursor reads a sequence of segments in order.
type cursor struct {
	segs    [][]float64
	si, off int
	buf     [pairwiseBlock]float64
}

// pairwise mirrors pairwiseSum's recursion over the next n values, handing
// each leaf block to leaf.
func (c *cursor) pairwise(n int, leaf func([]float64) float64) float64 {
	if n <= pairwiseBlock {
		b := c.buf[:n]
		for k := 0; k < n; {
			s := c.segs[c.si]
			if c.off >= len(s) {
				c.si++
				c.off = 0
				continue
			}
			m := copy(b[k:], s[c.off:])
			k += m
			c.off += m
		}
		return leaf(b)
	}
	n2 := n / 2
	n2 -= n2 % 8
	left := c.pairwise(n2, leaf)
	return left + c.pairwise(n-n2, leaf)
}

// pairwiseBlock is NumPy's PW_BLOCKSIZE.
const pairwiseBlock = 128

// pairwiseSum adds x the way NumPy's add.reduce does for a contiguous
// float64 array: below 8 elements a plain loop; up to 128 elements eight
// interleaved accumulators combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// plus a plain tail; above that, split in two halves (the first a multiple
// of 8 long) and add the halves' sums.
func pairwiseSum(x []float64) float64 {
	n := len(x)
	if n < 8 {
		res := 0.0
		for _, v := range x {
			res += v
		}
		return res
	}
	if n <= pairwiseBlock {
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += x[i]
			r[1] += x[i+1]
			r[2] += x[i+2]
			r[3] += x[i+3]
			r[4] += x[i+4]
			r[5] += x[i+5]
			r[6] += x[i+6]
			r[7] += x[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += x[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(x[:n2]) + pairwiseSum(x[n2:])
}

// pairwiseSumSqDev is pairwiseSum over (x[i]-mean)², the second pass of
// np.var, computed on the fly instead of materialising a second array.
func pairwiseSumSqDev(x []float64, mean float64) float64 {
	n := len(x)
	sq := func(v float64) float64 { d := v - mean; return d * d }
	if n < 8 {
		res := 0.0
		for _, v := range x {
			res += sq(v)
		}
		return res
	}
	if n <= pairwiseBlock {
		var r [8]float64
		for j := range 8 {
			r[j] = sq(x[j])
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += sq(x[i])
			r[1] += sq(x[i+1])
			r[2] += sq(x[i+2])
			r[3] += sq(x[i+3])
			r[4] += sq(x[i+4])
			r[5] += sq(x[i+5])
			r[6] += sq(x[i+6])
			r[7] += sq(x[i+7])
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += sq(x[i])
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSumSqDev(x[:n2], mean) + pairwiseSumSqDev(x[n2:], mean)
}

// selectRanks reorders x so that x[r] holds the r-th smallest value for
// every r in ranks (sorted, unique, within x): a multi-target quickselect
// with three-way partitioning (runs of equal values are common: chunk gaps
// quantised by a server's step time). Expected O(n·log k) for k ranks; a
// depth limit falls back to sorting the remaining range, so the worst case
// stays O(n log n).
func selectRanks(x []float64, ranks []int) {
	if len(x) == 0 || len(ranks) == 0 {
		return
	}
	multiselect(x, 0, len(x), ranks, 2*bits.Len(uint(len(x))))
}

func multiselect(x []float64, lo, hi int, ranks []int, depth int) {
	for len(ranks) > 0 {
		if hi-lo <= 32 || depth <= 0 {
			slices.Sort(x[lo:hi])
			return
		}
		depth--
		p := medianOf3(x[lo], x[lo+(hi-lo)/2], x[hi-1])
		lt, gt := partition3(x[lo:hi], p)
		lt += lo
		gt += lo
		// ranks < lt are in the left part, ranks >= gt in the right part,
		// ranks in between already hold the pivot value.
		i, _ := slices.BinarySearch(ranks, lt)
		j, _ := slices.BinarySearch(ranks, gt)
		if i > 0 {
			multiselect(x, lo, lt, ranks[:i], depth)
		}
		lo, ranks = gt, ranks[j:]
	}
}

func medianOf3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
		if a > b {
			b = a
		}
	}
	return b
}

// partition3 rearranges x into [< p][== p][> p] and returns the bounds of
// the middle part (Dijkstra's Dutch national flag).
func partition3(x []float64, p float64) (lt, gt int) {
	lt, i, gt := 0, 0, len(x)
	for i < gt {
		switch v := x[i]; {
		case v < p:
			x[lt], x[i] = v, x[lt]
			lt++
			i++
		case v > p:
			gt--
			x[gt], x[i] = v, x[gt]
		default:
			i++
		}
	}
	return lt, gt
}

// MeanOf is the mean of a reported metric in ms (Summary.Metrics), NaN
// when the summary does not report it.
func (s *Summary) MeanOf(metric string) float64 {
	for i := range s.Metrics {
		if s.Metrics[i].Metric == metric {
			return s.Metrics[i].Mean
		}
	}
	return math.NaN()
}
