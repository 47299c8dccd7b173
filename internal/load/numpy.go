package load

import "math"

// RandomState reproduces the draws of NumPy's legacy global RNG
// (numpy.random.seed / numpy.random.gamma: MT19937 with RandomState's
// "legacy" samplers), which is what vllm bench serve draws its inter-arrival
// gaps from. With the same --seed and no other use of that RNG before the
// arrival schedule (true for the random and sharegpt datasets, whose
// samplers use their own generators), our schedule equals vLLM's up to
// last-bit differences between Go's math.Log/Pow and the C library's.
//
// The legacy samplers are frozen by NumPy's compatibility policy, so this
// does not depend on the NumPy version. A RandomState is not safe for
// concurrent use.
type RandomState struct {
	mt       [mtN]uint32
	pos      int
	hasGauss bool
	gauss    float64
}

const (
	mtN       = 624
	mtM       = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// NewRandomState seeds like numpy.random.seed(seed) with an integer seed
// (NumPy accepts 0 <= seed < 2**32; it uses MT19937's init_genrand).
func NewRandomState(seed uint32) *RandomState {
	r := &RandomState{}
	s := seed
	for i := range mtN {
		r.mt[i] = s
		s = 1812433253*(s^(s>>30)) + uint32(i) + 1
	}
	r.pos = mtN
	return r
}

// Uint32 is MT19937's next tempered output.
func (r *RandomState) Uint32() uint32 {
	if r.pos == mtN {
		r.twist()
	}
	y := r.mt[r.pos]
	r.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func (r *RandomState) twist() {
	mag := func(y uint32) uint32 { return (y & 1) * matrixA }
	i := 0
	for ; i < mtN-mtM; i++ {
		y := (r.mt[i] & upperMask) | (r.mt[i+1] & lowerMask)
		r.mt[i] = r.mt[i+mtM] ^ (y >> 1) ^ mag(y)
	}
	for ; i < mtN-1; i++ {
		y := (r.mt[i] & upperMask) | (r.mt[i+1] & lowerMask)
		r.mt[i] = r.mt[i+mtM-mtN] ^ (y >> 1) ^ mag(y)
	}
	y := (r.mt[mtN-1] & upperMask) | (r.mt[0] & lowerMask)
	r.mt[mtN-1] = r.mt[mtM-1] ^ (y >> 1) ^ mag(y)
	r.pos = 0
}

// Float64 is a 53-bit uniform double in [0, 1) (numpy.random.random_sample).
func (r *RandomState) Float64() float64 {
	a := r.Uint32() >> 5
	b := r.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}

// Gauss is a standard normal draw by the polar method, caching the second
// value of each pair (numpy.random.standard_normal).
func (r *RandomState) Gauss() float64 {
	if r.hasGauss {
		r.hasGauss = false
		g := r.gauss
		r.gauss = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		x1 = 2*r.Float64() - 1
		x2 = 2*r.Float64() - 1
		r2 = x1*x1 + x2*x2
		if r2 < 1 && r2 != 0 {
			break
		}
	}
	f := math.Sqrt(-2 * math.Log(r2) / r2)
	r.gauss = f * x1
	r.hasGauss = true
	return f * x2
}

// StandardExponential is -log(1 - U) (numpy.random.standard_exponential).
func (r *RandomState) StandardExponential() float64 {
	return -math.Log(1 - r.Float64())
}

// StandardGamma is a Gamma(shape, 1) draw with NumPy's legacy algorithm:
// the exponential for shape 1, Ahrens-Dieter style rejection for shape < 1,
// Marsaglia-Tsang for shape > 1.
func (r *RandomState) StandardGamma(shape float64) float64 {
	switch {
	case shape == 1:
		return r.StandardExponential()
	case shape == 0:
		return 0
	case shape < 1:
		for {
			u := r.Float64()
			v := r.StandardExponential()
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
			x = r.Gauss()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*(x*x)*(x*x) {
			return b * v
		}
		if math.Log(u) < 0.5*x*x+b*(1-v+math.Log(v)) {
			return b * v
		}
	}
}

// Gamma is scale * StandardGamma(shape) (numpy.random.gamma(shape, scale)).
func (r *RandomState) Gamma(shape, scale float64) float64 {
	return scale * r.StandardGamma(shape)
}
