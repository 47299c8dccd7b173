package stats

import "math"

// Wilson is the Wilson score interval of a proportion: k successes out of
// n trials at confidence conf. Unlike the plain p̂ ± z·√(p̂(1−p̂)/n) it
// stays inside [0, 1] and is not empty at k = 0 or k = n, which is where
// an SLA's attainment share usually sits. ok is false when n < 1 or k is
// outside 0..n.
//
// With z = Φ⁻¹(1 − α/2):
//
//	centre = (p̂ + z²/2n) / (1 + z²/n)
//	half   = z/(1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²)
//
// Vectors at 0.95: 95/100 → [0.888, 0.978]; 100/100 → [0.963, 1.0].
func Wilson(k, n int, conf float64) (low, high float64, ok bool) {
	if n < 1 || k < 0 || k > n || !validConf(conf) {
		return 0, 0, false
	}
	z := NormalQuantile(1 - (1-conf)/2)
	fn := float64(n)
	p := float64(k) / fn
	z2 := z * z
	denom := 1 + z2/fn
	centre := (p + z2/(2*fn)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn))
	return math.Max(0, centre-half), math.Min(1, centre+half), true
}
