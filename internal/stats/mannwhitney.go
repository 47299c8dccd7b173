package stats

import (
	"math"
	"sort"
)

// MinRuns is the fewest values per side with which MannWhitney will call
// a change (benchstat's rule): with 3 a side the smallest possible
// two-sided p is 0.1, so no change could ever be significant at 0.05 and
// a "no change" would only mean "too few runs".
const MinRuns = 4

// exactLimit is the largest pooled sample MannWhitney tests with the
// exact permutation distribution; above it the normal approximation
// (with tie correction) is within about 0.005 of it.
const exactLimit = 50

// RankTest is the outcome of a Mann–Whitney U test.
type RankTest struct {
	// U is the U statistic of the first sample: the pairs (a, b) with
	// a > b, ties counting ½.
	U float64
	// P is the two-sided p-value: the chance, were both samples drawn
	// from one distribution, of a rank sum at least this far from its
	// expectation.
	P float64
	// Exact is true when P comes from the exact permutation distribution
	// (pooled n ≤ 50), false for the normal approximation.
	Exact bool
}

// MannWhitney tests whether a and b (e.g. one figure over the runs of two
// configurations) come from one distribution, two-sided, without assuming
// any shape: it compares ranks, so one outlying run moves it by one rank
// only. ok is false when either side has fewer than MinRuns values: the
// test refuses to call a change then. Ties get midranks; the exact
// distribution then enumerates the tied ranks as they are.
func MannWhitney(a, b []float64) (RankTest, bool) {
	if len(a) < MinRuns || len(b) < MinRuns {
		return RankTest{}, false
	}
	return mannWhitney(a, b), true
}

// mannWhitney is MannWhitney without the MinRuns rule (len(a), len(b) ≥ 1).
func mannWhitney(a, b []float64) RankTest {
	n1, n2 := len(a), len(b)
	n := n1 + n2
	type item struct {
		v     float64
		first bool
	}
	pool := make([]item, 0, n)
	for _, v := range a {
		pool = append(pool, item{v, true})
	}
	for _, v := range b {
		pool = append(pool, item{v, false})
	}
	sort.SliceStable(pool, func(i, j int) bool { return pool[i].v < pool[j].v })
	// rank2 holds doubled midranks (integers: i + j for a tie group over
	// 1-based ranks i..j), so the exact distribution counts exactly.
	rank2 := make([]int, n)
	tieTerm := 0.0 // Σ (t³ − t) over tie groups
	for i := 0; i < n; {
		j := i
		for j+1 < n && pool[j+1].v == pool[i].v {
			j++
		}
		for k := i; k <= j; k++ {
			rank2[k] = (i + 1) + (j + 1)
		}
		t := float64(j - i + 1)
		tieTerm += t*t*t - t
		i = j + 1
	}
	obs2 := 0 // doubled rank sum of a
	for k := range pool {
		if pool[k].first {
			obs2 += rank2[k]
		}
	}
	u := float64(obs2)/2 - float64(n1*(n1+1))/2
	exp2 := n1 * (n + 1) // doubled expected rank sum of a
	dev := abs(obs2 - exp2)
	if n <= exactLimit {
		// ways[c][s]: subsets of c pooled items with doubled rank sum s.
		maxSum := n * (n + 1)
		ways := make([][]float64, n1+1)
		for c := range ways {
			ways[c] = make([]float64, maxSum+1)
		}
		ways[0][0] = 1
		for k := 0; k < n; k++ {
			r := rank2[k]
			for c := min(k+1, n1); c >= 1; c-- {
				prev, cur := ways[c-1], ways[c]
				for s := maxSum; s >= r; s-- {
					cur[s] += prev[s-r]
				}
			}
		}
		total, tail := 0.0, 0.0
		for s, w := range ways[n1] {
			total += w
			if abs(s-exp2) >= dev {
				tail += w
			}
		}
		return RankTest{U: u, P: math.Min(1, tail/total), Exact: true}
	}
	f1, f2, fn := float64(n1), float64(n2), float64(n)
	mu := f1 * f2 / 2
	sigma := math.Sqrt(f1 * f2 / 12 * ((fn + 1) - tieTerm/(fn*(fn-1))))
	if sigma == 0 {
		return RankTest{U: u, P: 1}
	}
	z := math.Max(0, math.Abs(u-mu)-0.5) / sigma
	return RankTest{U: u, P: math.Min(1, math.Erfc(z/math.Sqrt2))}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
