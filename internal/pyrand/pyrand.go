// Package pyrand reproduces the parts of CPython's random module that vLLM's
// datasets use on file-based data: random.seed(int), random.shuffle(list)
// and random.choice(list). With the same seed and list length, Shuffle
// permutes exactly as Python does and Choice picks the same index, so the
// ShareGPT and custom datasets select the same entries as vllm bench serve.
//
// CPython's algorithms (Modules/_randommodule.c, Lib/random.py):
//
//   - seed(n): key = |n| as little-endian 32-bit words ([0] for 0), fed to
//     MT19937's init_by_array.
//   - getrandbits(k), k <= 32: the next tempered 32-bit output >> (32-k).
//   - _randbelow(n): k = n.bit_length(); draw getrandbits(k) until < n.
//   - shuffle(x): for i from len(x)-1 down to 1, swap x[i] with
//     x[_randbelow(i+1)].
//   - choice(seq): seq[_randbelow(len(seq))].
//
// It refuses everything else (floats, other distributions, version-1 seeds,
// string seeds, ranges beyond 2^32).
//
// Rand is also the one MT19937 core in llmbench: NewGenrand seeds it the way
// NumPy's legacy RandomState does, and package numpyrand builds np.random's
// legacy samplers on it.
package pyrand

import "math/bits"

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is a CPython random.Random seeded with an integer.
type Rand struct {
	mt  [n]uint32
	mti int
}

// New returns the equivalent of random.Random(seed) (or random.seed(seed)).
// Like CPython, the sign of seed is ignored.
func New(seed int64) *Rand {
	u := uint64(seed)
	if seed < 0 {
		u = uint64(-seed)
	}
	key := []uint32{}
	for u > 0 {
		key = append(key, uint32(u))
		u >>= 32
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	r := &Rand{}
	r.initByArray(key)
	return r
}

// NewGenrand returns MT19937 seeded with init_genrand(seed), the seeding
// NumPy's legacy RandomState(seed) / np.random.seed(seed) uses for an
// integer seed (CPython's random uses init_by_array instead; see New).
func NewGenrand(seed uint32) *Rand {
	r := &Rand{}
	r.initGenrand(seed)
	return r
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 returns the next tempered MT19937 output (genrand_uint32).
func (r *Rand) Uint32() uint32 {
	if r.mti >= n {
		r.twist()
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// twist regenerates all n state words (genrand_uint32's refill). The three
// loops avoid a modulo per word; the result is the reference algorithm's.
func (r *Rand) twist() {
	mag := func(y uint32) uint32 { return (y & 1) * matrixA }
	kk := 0
	for ; kk < n-m; kk++ {
		y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
		r.mt[kk] = r.mt[kk+m] ^ (y >> 1) ^ mag(y)
	}
	for ; kk < n-1; kk++ {
		y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
		r.mt[kk] = r.mt[kk+m-n] ^ (y >> 1) ^ mag(y)
	}
	y := (r.mt[n-1] & upperMask) | (r.mt[0] & lowerMask)
	r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ mag(y)
	r.mti = 0
}

// Below returns random._randbelow(n) for 0 < n <= 2^32: a uniform integer
// in [0, n) by rejection on getrandbits(n.bit_length()).
func (r *Rand) Below(nv int) int {
	if nv <= 0 {
		panic("pyrand: Below needs n > 0")
	}
	k := bits.Len64(uint64(nv))
	if k > 32 {
		panic("pyrand: Below supports n <= 2^32 only")
	}
	for {
		v := int(r.Uint32() >> (32 - k))
		if v < nv {
			return v
		}
	}
}

// Shuffle permutes n elements in place exactly as random.shuffle does,
// calling swap(i, j).
func (r *Rand) Shuffle(count int, swap func(i, j int)) {
	for i := count - 1; i > 0; i-- {
		swap(i, r.Below(i+1))
	}
}

// Choice returns the index random.choice(seq) would pick for len(seq) ==
// count (count > 0).
func (r *Rand) Choice(count int) int { return r.Below(count) }
