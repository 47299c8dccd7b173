package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refPercentile is NumPy's linear percentile on a fully sorted copy, the
// reference for the selection-based implementation.
func refPercentile(x []float64, p float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	h := float64(n-1) * (p / 100)
	lo := int(math.Floor(h))
	hi := min(lo+1, n-1)
	g := h - float64(lo)
	if g < 0.5 {
		return s[lo] + (s[hi]-s[lo])*g
	}
	return s[hi] - (s[hi]-s[lo])*(1-g)
}

func TestDescribeEdgeCases(t *testing.T) {
	t.Parallel()
	pcts := []float64{0, 25, 50, 99, 100}
	tests := []struct {
		name   string
		values []float64 // seconds
		mean   float64   // ms
		median float64
		std    float64
		pcts   []float64 // ms, one per pcts
	}{
		{"empty list is the single value 0 (vLLM's 'or 0')", nil, 0, 0, 0, []float64{0, 0, 0, 0, 0}},
		{"n=1: every statistic is the value, std 0", []float64{0.25}, 250, 250, 0, []float64{250, 250, 250, 250, 250}},
		{"n=2: median is the mean of both, percentiles interpolate", []float64{0.3, 0.1}, 200, 200, 100,
			// h = p/100: p25 -> 0.1+0.2*0.25; p50 g=0.5 -> 0.3-0.2*0.5; p99 -> 0.3-0.2*0.01
			[]float64{100, (0.1 + 0.2*0.25) * 1000, (0.3 - 0.2*0.5) * 1000, (0.3 - (0.3-0.1)*(1-0.99)) * 1000, 300}},
		{"all equal values", []float64{0.125, 0.125, 0.125, 0.125, 0.125}, 125, 125, 0, []float64{125, 125, 125, 125, 125}},
		{"n=4 worked example from the doc comment", []float64{10, 1, 3, 2}, 4000, 2500, math.Sqrt(12.5) * 1000,
			[]float64{1000, 1750, 2500, (10 - 7*(1-0.97)) * 1000, 10000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := describe("x", slices.Clone(tt.values), pcts)
			if st.N != len(tt.values) {
				t.Errorf("N = %d, want %d", st.N, len(tt.values))
			}
			check := func(what string, got, want float64) {
				t.Helper()
				if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s = %.17g, want %.17g", what, got, want)
				}
			}
			check("mean", st.Mean, tt.mean)
			check("median", st.Median, tt.median)
			check("std", st.Std, tt.std)
			for i, p := range pcts {
				check(fmt.Sprintf("p%v", p), st.Percentiles[i], tt.pcts[i])
			}
		})
	}
}

// TestDescribeMatchesSortedReference checks the multi-target selection
// against a full sort on random, duplicate-heavy and sorted inputs.
func TestDescribeMatchesSortedReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pcts := []float64{0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100}
	inputs := map[string][]float64{}
	for _, n := range []int{1, 2, 3, 7, 8, 33, 128, 129, 1000, 10007} {
		u := make([]float64, n)
		q := make([]float64, n)
		s := make([]float64, n)
		for i := range u {
			u[i] = rng.ExpFloat64() / 30
			q[i] = float64(rng.IntN(4)) * 0.0125 // few distinct values
			s[i] = float64(i) / 1000             // already sorted
		}
		inputs[fmt.Sprint("exp", n)] = u
		inputs[fmt.Sprint("quantised", n)] = q
		inputs[fmt.Sprint("sorted", n)] = s
		r := slices.Clone(s)
		slices.Reverse(r)
		inputs[fmt.Sprint("reversed", n)] = r
	}
	for name, x := range inputs {
		st := describe("x", slices.Clone(x), pcts)
		for i, p := range pcts {
			if want := refPercentile(x, p) * 1000; st.Percentiles[i] != want {
				t.Errorf("%s p%v = %.17g, want %.17g", name, p, st.Percentiles[i], want)
			}
		}
		s := slices.Clone(x)
		slices.Sort(s)
		n := len(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if st.Median != want*1000 {
			t.Errorf("%s median = %.17g, want %.17g", name, st.Median, want*1000)
		}
	}
}

// TestPairwiseSum pins NumPy's summation order, which decides the last
// bits of every mean.
func TestPairwiseSum(t *testing.T) {
	t.Parallel()
	tiny := math.Ldexp(1, -53) // half an ulp of 1.0
	x := make([]float64, 16)
	x[0] = 1
	for i := 1; i < 16; i++ {
		x[i] = tiny
	}
	// A plain loop rounds every 1 + 2^-53 back to 1. NumPy's eight
	// accumulators give r0 = 1 (x0 + x8 rounds to 1), r1..r7 = 2^-52, and
	// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) = 1 + 7·2^-52 exactly.
	plain := 0.0
	for _, v := range x {
		plain += v
	}
	if plain != 1 {
		t.Fatalf("plain loop = %.17g, want 1 (test premise)", plain)
	}
	if got, want := pairwiseSum(x), 1+7*math.Ldexp(1, -52); got != want {
		t.Errorf("pairwiseSum = %.17g, want %.17g", got, want)
	}
	// Below 8 elements NumPy adds in a plain loop.
	if got := pairwiseSum(x[:7]); got != 1 {
		t.Errorf("pairwiseSum(7) = %.17g, want 1", got)
	}
	// Above 128 elements it splits at n/2 rounded down to a multiple of 8.
	// n = 136 splits 64 | 72: the left block gives 1 + 28·2^-52 as above
	// (r0 stays 1, r1..r7 = 8·2^-53), the right 72·2^-53 = 36·2^-52, so
	// the sum is 1 + 2^-46 exactly. A split at 68 would lose the left
	// block's 4-element tail to rounding (1 + 62·2^-52); a plain loop
	// gives 1.
	split := make([]float64, 136)
	split[0] = 1
	for i := 1; i < len(split); i++ {
		split[i] = tiny
	}
	if got, want := pairwiseSum(split), 1+math.Ldexp(1, -46); got != want {
		t.Errorf("pairwiseSum(136) = %.17g, want %.17g (split 64 | 72)", got, want)
	}
	// Integers add exactly whatever the order: a check of the recursion's
	// coverage (every element added once), not of its order.
	big := make([]float64, 1001)
	for i := range big {
		big[i] = float64(i)
	}
	if got := pairwiseSum(big); got != 500500 {
		t.Errorf("pairwiseSum(0..1000) = %v, want 500500", got)
	}
	if got, want := pairwiseSumSqDev([]float64{1, 2, 3, 4}, 2.5), 5.0; got != want {
		t.Errorf("pairwiseSumSqDev = %v, want %v", got, want)
	}
}

func TestMeanOf(t *testing.T) {
	s := &Summary{Metrics: []Stats{{Metric: TTFT, Mean: 12.5}, {Metric: E2EL, Mean: 300}}}
	for metric, want := range map[string]float64{TTFT: 12.5, E2EL: 300, TPOT: math.NaN()} {
		if got := s.MeanOf(metric); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("MeanOf(%s) = %v, want %v", metric, got, want)
		}
	}
}
