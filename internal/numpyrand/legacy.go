package numpyrand

import (
	"fmt"
	"math"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// RandomState is NumPy's legacy generator, numpy.random.RandomState, which
// backs the module-level functions after np.random.seed(seed): MT19937
// seeded with init_genrand(seed) (pyrand's core, shared with CPython's
// random), bounded integers by masked rejection, and the "legacy" samplers
// (numpy/random/src/legacy/legacy-distributions.c). vLLM's prefix_repetition
// dataset draws its integers from it and vllm bench serve its inter-arrival
// gaps (np.random.gamma).
//
// The legacy samplers are frozen by NumPy's compatibility policy, so the
// draws do not depend on the NumPy version. Integer and uniform draws match
// NumPy bit for bit; draws that go through log, sqrt or pow can differ from
// NumPy's in the last bit, where Go's math package and the C library round
// differently. A RandomState is not safe for concurrent use.
type RandomState struct {
	mt *pyrand.Rand
	// hasGauss and gauss cache the second normal of each polar-method pair,
	// as NumPy's legacy_gauss does; every sampler shares the cache.
	hasGauss bool
	gauss    float64
}

// NewRandomState returns the equivalent of np.random.seed(seed) for
// 0 <= seed < 2^32 (NumPy's legacy seeding refuses anything else).
func NewRandomState(seed int64) (*RandomState, error) {
	if seed < 0 || seed > 0xFFFFFFFF {
		return nil, fmt.Errorf("numpyrand: legacy seed must be between 0 and 2**32 - 1, got %d", seed)
	}
	return &RandomState{mt: pyrand.NewGenrand(uint32(seed))}, nil
}

// Uint32 returns MT19937's next tempered output (the bit generator's raw
// 32-bit draw).
func (s *RandomState) Uint32() uint32 { return s.mt.Uint32() }

// Randint returns np.random.randint(low, high, size=n) (int64): values in
// [low, high) by masked rejection on 32-bit draws for ranges below 2^32.
// Wider ranges are not supported (no vocabulary needs them).
func (s *RandomState) Randint(low, high int64, n int) ([]int64, error) {
	out := make([]int64, n)
	if n == 0 {
		return out, nil
	}
	if low >= high {
		return nil, ErrEmptyRange
	}
	rng := uint64(high-1) - uint64(low)
	switch {
	case rng == 0:
		for i := range out {
			out[i] = low
		}
	case rng == 0xFFFFFFFF:
		for i := range out {
			out[i] = low + int64(s.mt.Uint32())
		}
	case rng < 0xFFFFFFFF:
		mask := uint32(rng)
		for _, sh := range []uint{1, 2, 4, 8, 16} {
			mask |= mask >> sh
		}
		for i := range out {
			v := s.mt.Uint32() & mask
			for uint64(v) > rng {
				v = s.mt.Uint32() & mask
			}
			out[i] = low + int64(v)
		}
	default:
		return nil, fmt.Errorf("numpyrand: legacy randint range %d is wider than 2^32", rng)
	}
	return out, nil
}

// Float64 is a 53-bit uniform double in [0, 1) built from two 32-bit draws
// (np.random.random_sample; MT19937's next_double).
func (s *RandomState) Float64() float64 {
	a := s.mt.Uint32() >> 5
	b := s.mt.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}

// Gauss is a standard normal draw by the polar method, returning the
// second value of each pair and caching the first for the next call
// (np.random.standard_normal; legacy_gauss).
func (s *RandomState) Gauss() float64 {
	if s.hasGauss {
		s.hasGauss = false
		g := s.gauss
		s.gauss = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		x1 = 2*s.Float64() - 1
		x2 = 2*s.Float64() - 1
		r2 = x1*x1 + x2*x2
		if r2 < 1 && r2 != 0 {
			break
		}
	}
	f := math.Sqrt(-2 * math.Log(r2) / r2)
	s.gauss = f * x1
	s.hasGauss = true
	return f * x2
}

// StandardExponential is -log(1 - U) (np.random.standard_exponential;
// legacy_standard_exponential).
func (s *RandomState) StandardExponential() float64 {
	return -math.Log(1 - s.Float64())
}

// StandardGamma is a Gamma(shape, 1) draw with NumPy's legacy algorithm
// (legacy_standard_gamma): the exponential for shape 1, 0 for shape 0,
// Johnk-style rejection for shape < 1, Marsaglia-Tsang on legacy normals
// for shape > 1.
func (s *RandomState) StandardGamma(shape float64) float64 {
	switch {
	case shape == 1:
		return s.StandardExponential()
	case shape == 0:
		return 0
	case shape < 1:
		for {
			u := s.Float64()
			v := s.StandardExponential()
			if u <= 1-shape {
				x := math.Pow(u, 1/shape)
				if x <= v {
					return x
				}
			} else {
				y := -math.Log((1 - u) / shape)
				x := math.Pow(1-shape+shape*y, 1/shape)
				if x <= v+y {
					return x
				}
			}
		}
	}
	b := shape - 1.0/3.0
	c := 1 / math.Sqrt(9*b)
	for {
		var x, v float64
		for {
			x = s.Gauss()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := s.Float64()
		if u < 1-0.0331*(x*x)*(x*x) {
			return b * v
		}
		if math.Log(u) < 0.5*x*x+b*(1-v+math.Log(v)) {
			return b * v
		}
	}
}

// Gamma is scale * StandardGamma(shape) (np.random.gamma(shape, scale);
// legacy_gamma).
func (s *RandomState) Gamma(shape, scale float64) float64 {
	return scale * s.StandardGamma(shape)
}
