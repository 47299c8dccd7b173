package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// split cuts x into random segments, empty ones included.
func split(rng *rand.Rand, x []float64) [][]float64 {
	var segs [][]float64
	for len(x) > 0 {
		k := min(len(x), rng.IntN(300))
		segs = append(segs, x[:k])
		x = x[k:]
	}
	return append(segs, nil)
}

func testData(rng *rand.Rand, kind string, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch kind {
		case "exp":
			x[i] = rng.ExpFloat64() / 40
		case "quantised":
			x[i] = float64(rng.IntN(3)) * 0.125
		case "equal":
			x[i] = 0.02
		case "signed":
			x[i] = rng.NormFloat64() * 1e3
		case "wide":
			x[i] = math.Ldexp(rng.Float64(), rng.IntN(200)-100)
		}
	}
	return x
}

// TestSegmentedSumsMatchNumPyOrder: summing segments through the cursor
// gives bit for bit the pairwise sum of the concatenation.
func TestSegmentedSumsMatchNumPyOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, 8, 100, 128, 129, 1000, 65537} {
		x := testData(rng, "exp", n)
		segs := split(rng, x)
		if got, want := segSum(segs, n), pairwiseSum(x); got != want {
			t.Errorf("n=%d: segSum = %.17g, want %.17g", n, got, want)
		}
		if got, want := segSumSqDev(segs, n, 0.3), pairwiseSumSqDev(x, 0.3); got != want {
			t.Errorf("n=%d: segSumSqDev = %.17g, want %.17g", n, got, want)
		}
	}
}

// TestRadixOrderStats compares the copy-free radix selection with a sort.
func TestRadixOrderStats(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	for _, kind := range []string{"exp", "quantised", "equal", "signed", "wide"} {
		for _, n := range []int{1, 2, 3, 1000, radixCollect + 5000} {
			t.Run(fmt.Sprint(kind, n), func(t *testing.T) {
				x := testData(rng, kind, n)
				sorted := slices.Clone(x)
				slices.Sort(sorted)
				ranks := []int{0, n / 3, (n - 1) / 2, n / 2, n * 99 / 100, n - 1}
				slices.Sort(ranks)
				ranks = slices.Compact(ranks)
				got := radixOrderStats(split(rng, x), ranks)
				for i, r := range ranks {
					if got[i] != sorted[r] {
						t.Errorf("rank %d = %v, want %v", r, got[i], sorted[r])
					}
				}
			})
		}
	}
}

// TestDescribePathsAgree: a pooled list large enough for radix selection
// gives exactly the statistics of the in-place path on a copy.
func TestDescribePathsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 11))
	pcts := []float64{0, 50, 90, 99, 99.9, 100}
	for _, kind := range []string{"exp", "quantised"} {
		x := testData(rng, kind, radixMin+77)
		want := describe("itl", slices.Clone(x), pcts)
		got := describeSegs("itl", split(rng, x), len(x), pcts, false)
		if !cmpStats(got, want) {
			t.Errorf("%s: radix path %+v\nin-place path %+v", kind, got, want)
		}
		small := x[:5000]
		want = describe("itl", slices.Clone(small), pcts)
		got = describeSegs("itl", split(rng, small), len(small), pcts, false)
		if !cmpStats(got, want) {
			t.Errorf("%s: copy path %+v\nin-place path %+v", kind, got, want)
		}
	}
}

func cmpStats(a, b Stats) bool {
	return a.Metric == b.Metric && a.N == b.N && a.Mean == b.Mean && a.Median == b.Median && a.Std == b.Std && slices.Equal(a.Percentiles, b.Percentiles)
}
