package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBootstrapITL is compare's heaviest case: pooled ITL of 2,000
// requests with 100 gaps each, mean + median + p99, 2,000 resamples.
func BenchmarkBootstrapITL(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups := func() [][]float64 {
		g := make([][]float64, 2000)
		for i := range g {
			g[i] = make([]float64, 100)
			for j := range g[i] {
				g[i][j] = 20 + rng.ExpFloat64()
			}
		}
		return g
	}
	a, c := NewSample(groups()), NewSample(groups())
	qs := []float64{0.5, 0.99}
	for b.Loop() {
		BootstrapDiff(a.Units(), c.Units(), 3, a.Stats(qs), c.Stats(qs), BootstrapOptions{})
	}
}
