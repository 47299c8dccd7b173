package metrics

import (
	"math"
	"slices"
)

// radixCollect is the group size from which radixOrderStats stops
// narrowing by histograms and collects the group's values for a final
// selection.
const radixCollect = 1 << 18

// sortKey maps a float64 to a uint64 with the same order (negative values
// flipped whole, non-negative ones with the sign bit set).
func sortKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// fromSortKey inverts sortKey.
func fromSortKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// radixGroup is a key range [lo, hi] known to contain the order statistics
// of ranks (relative to the range's first value in sorted order).
type radixGroup struct {
	lo, hi uint64
	count  int
	ranks  []int // relative ranks, sorted
	out    []int // result index of each rank
	hist   []uint32
	vals   []float64
}

// radixOrderStats returns the values at ranks (sorted, unique) of the
// concatenation of segs, without copying it: a most-significant-digit
// radix select over sortKey, 16 bits per pass. Each pass histograms the
// next digit of the values inside each still-open key range; a range small
// enough (radixCollect) is collected and finished by selectRanks. Typical
// latency data needs three read-only passes; identical values need four.
func radixOrderStats(segs [][]float64, ranks []int) []float64 {
	res := make([]float64, len(ranks))
	out := make([]int, len(ranks))
	for i := range out {
		out[i] = i
	}
	n := 0
	for _, s := range segs {
		n += len(s)
	}
	groups := []*radixGroup{{lo: 0, hi: math.MaxUint64, count: n, ranks: slices.Clone(ranks), out: out}}
	for shift := 48; len(groups) > 0; shift -= 16 {
		open := groups[:0]
		for _, g := range groups {
			if g.lo == g.hi { // every value in the range is the same
				for _, o := range g.out {
					res[o] = fromSortKey(g.lo)
				}
				continue
			}
			if g.count <= radixCollect || shift < 0 {
				g.vals = make([]float64, 0, g.count)
			} else {
				g.hist = make([]uint32, 1<<16)
			}
			open = append(open, g)
		}
		groups = open
		if len(groups) == 0 {
			break
		}
		his := make([]uint64, len(groups))
		// covered marks the top 16 key bits that fall in some group: one
		// table lookup turns away most values once the groups are narrow.
		var covered [1 << 16]bool
		for i, g := range groups {
			his[i] = g.hi
			for d := g.lo >> 48; d <= g.hi>>48; d++ {
				covered[d] = true
			}
		}
		for _, s := range segs {
			for _, v := range s {
				k := sortKey(v)
				if !covered[k>>48] {
					continue
				}
				// Groups are disjoint and sorted by range: find the first
				// whose hi is >= k.
				lo, hi := 0, len(his)
				for lo < hi {
					m := int(uint(lo+hi) >> 1)
					if his[m] < k {
						lo = m + 1
					} else {
						hi = m
					}
				}
				if lo == len(his) {
					continue
				}
				g := groups[lo]
				if k < g.lo {
					continue
				}
				if g.hist != nil {
					g.hist[(k>>uint(shift))&0xffff]++
				} else {
					g.vals = append(g.vals, v)
				}
			}
		}
		var next []*radixGroup
		for _, g := range groups {
			if g.hist == nil {
				selectRanks(g.vals, g.ranks)
				for i, r := range g.ranks {
					res[g.out[i]] = g.vals[r]
				}
				continue
			}
			// Walk the histogram: rank r falls in digit d when the values
			// below d number <= r < those up to d.
			cum, d := 0, 0
			var cur *radixGroup
			for i, r := range g.ranks {
				for cum+int(g.hist[d]) <= r {
					cum += int(g.hist[d])
					d++
				}
				lo := g.lo | uint64(d)<<uint(shift)
				if cur == nil || cur.lo != lo {
					cur = &radixGroup{lo: lo, hi: lo | (1<<uint(shift) - 1), count: int(g.hist[d])}
					next = append(next, cur)
				}
				cur.ranks = append(cur.ranks, r-cum)
				cur.out = append(cur.out, g.out[i])
			}
		}
		groups = next
	}
	return res
}
