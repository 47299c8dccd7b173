// Package numpyrand reproduces, bit for bit, the parts of NumPy's random
// module that vLLM's benchmark datasets use: numpy.random.default_rng(seed)
// (SeedSequence -> PCG64) and Generator.integers(low, high, size) for the
// default int64 dtype, plus the legacy global generator (np.random.seed with
// np.random.randint, random_sample, standard_normal, standard_exponential,
// standard_gamma and gamma) that the prefix_repetition dataset and the
// request-arrival schedule use. With the same seed, a Generator here yields
// the same integers, in the same order, as NumPy's, so llmbench samples the
// same random-dataset lengths, offsets and padding ids as vllm bench serve;
// the RandomState (legacy.go) draws the same arrival gaps.
//
// The package implements only what that needs. It refuses to be a general
// NumPy clone: no Generator floating-point distributions, no other dtypes,
// no spawn keys.
//
// Algorithms, as NumPy implements them (numpy/random/bit_generator.pyx,
// numpy/random/src/pcg64/pcg64.h, numpy/random/src/distributions/
// distributions.c, numpy/random/_bounded_integers.pyx):
//
//   - SeedSequence: the seed's 32-bit words are hashed into a pool of four
//     32-bit words (hashmix/mix), then generate_state(4, uint64) reads eight
//     hashed words from the pool, which are viewed as four little-endian
//     uint64 values v0..v3.
//   - PCG64: a 128-bit LCG with state s and increment inc; seeding sets
//     s = 0, inc = (v2:v3 << 1) | 1, steps, adds v0:v1, steps again. Each
//     64-bit output steps first, then applies XSL-RR to the new state.
//     32-bit outputs split one 64-bit output, low half first, and keep the
//     high half for the next 32-bit request (across calls).
//   - Generator.integers(low, high): the closed range [low, high-1] has
//     width rng = high-1-low. rng == 0 draws nothing. rng < 2^32-1 uses
//     Lemire's multiply-shift rejection on 32-bit draws, rng == 2^32-1 a raw
//     32-bit draw; larger ranges use Lemire on 64-bit draws.
package numpyrand

import (
	"errors"
	"fmt"
	"math/bits"
)

// SeedSequence constants (NumPy bit_generator.pyx).
const (
	poolSize = 4
	initA    = 0x43b0d7e5
	multA    = 0x931e8875
	initB    = 0x8b51f9dd
	multB    = 0x58f38ded
	mixMultL = 0xca01f9dd
	mixMultR = 0x4973f715
	xShift   = 16
)

// PCG64's default 128-bit multiplier, high and low 64-bit halves.
const (
	pcgMultHi = 2549297995355413924
	pcgMultLo = 4865540595714422341
)

// seedWords splits a non-negative seed into little-endian 32-bit words the
// way NumPy's _coerce_to_uint32_array does for a Python int (0 -> [0]).
func seedWords(seed uint64) []uint32 {
	if seed == 0 {
		return []uint32{0}
	}
	var w []uint32
	for seed > 0 {
		w = append(w, uint32(seed))
		seed >>= 32
	}
	return w
}

func hashmix(value uint32, hashConst *uint32) uint32 {
	value ^= *hashConst
	*hashConst *= multA
	value *= *hashConst
	value ^= value >> xShift
	return value
}

func mix(x, y uint32) uint32 {
	r := mixMultL*x - mixMultR*y
	r ^= r >> xShift
	return r
}

// seedPool runs SeedSequence.mix_entropy over the seed's words.
func seedPool(entropy []uint32) [poolSize]uint32 {
	var pool [poolSize]uint32
	hc := uint32(initA)
	for i := range pool {
		if i < len(entropy) {
			pool[i] = hashmix(entropy[i], &hc)
		} else {
			pool[i] = hashmix(0, &hc)
		}
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src], &hc))
			}
		}
	}
	for src := poolSize; src < len(entropy); src++ {
		for dst := range pool {
			pool[dst] = mix(pool[dst], hashmix(entropy[src], &hc))
		}
	}
	return pool
}

// GenerateState returns SeedSequence(seed).generate_state(n, np.uint32):
// n 32-bit words derived from the seed. Exposed for the golden tests.
func GenerateState(seed uint64, n int) []uint32 {
	pool := seedPool(seedWords(seed))
	out := make([]uint32, n)
	hc := uint32(initB)
	for i := range out {
		v := pool[i%poolSize]
		v ^= hc
		hc *= multB
		v *= hc
		v ^= v >> xShift
		out[i] = v
	}
	return out
}

// PCG64 is NumPy's PCG64 bit generator (128-bit LCG, XSL-RR output) with
// its 32-bit half buffer.
type PCG64 struct {
	stateHi, stateLo uint64
	incHi, incLo     uint64
	hasUint32        bool
	uinteger         uint32
}

// NewPCG64 seeds a PCG64 the way numpy.random.PCG64(seed) does.
func NewPCG64(seed uint64) *PCG64 {
	w := GenerateState(seed, 8)
	v := [4]uint64{}
	for i := range v {
		v[i] = uint64(w[2*i]) | uint64(w[2*i+1])<<32
	}
	p := &PCG64{}
	// pcg_setseq_128_srandom_r(initstate = v0:v1, initseq = v2:v3)
	p.incHi = v[2]<<1 | v[3]>>63
	p.incLo = v[3]<<1 | 1
	p.step()
	var c uint64
	p.stateLo, c = bits.Add64(p.stateLo, v[1], 0)
	p.stateHi, _ = bits.Add64(p.stateHi, v[0], c)
	p.step()
	return p
}

// step advances the LCG: state = state*mult + inc (mod 2^128).
func (p *PCG64) step() {
	hi, lo := bits.Mul64(p.stateLo, pcgMultLo)
	hi += p.stateHi*pcgMultLo + p.stateLo*pcgMultHi
	var c uint64
	lo, c = bits.Add64(lo, p.incLo, 0)
	hi, _ = bits.Add64(hi, p.incHi, c)
	p.stateHi, p.stateLo = hi, lo
}

// Uint64 returns the next 64-bit output (NumPy's next_uint64).
func (p *PCG64) Uint64() uint64 {
	p.step()
	rot := uint(p.stateHi >> 58)
	return bits.RotateLeft64(p.stateHi^p.stateLo, -int(rot))
}

// Uint32 returns the next 32-bit output (NumPy's next_uint32): the low half
// of a fresh 64-bit output, then its high half on the following call.
func (p *PCG64) Uint32() uint32 {
	if p.hasUint32 {
		p.hasUint32 = false
		return p.uinteger
	}
	n := p.Uint64()
	p.hasUint32 = true
	p.uinteger = uint32(n >> 32)
	return uint32(n)
}

// Generator is numpy.random.Generator over PCG64, limited to integers.
type Generator struct {
	bg *PCG64
}

// DefaultRNG returns the equivalent of numpy.random.default_rng(seed).
// NumPy rejects negative seeds; so does this.
func DefaultRNG(seed int64) (*Generator, error) {
	if seed < 0 {
		return nil, fmt.Errorf("numpyrand: seed must be non-negative, got %d", seed)
	}
	return &Generator{bg: NewPCG64(uint64(seed))}, nil
}

// ErrEmptyRange is returned by Integers when low >= high.
var ErrEmptyRange = errors.New("numpyrand: low >= high")

// Integers returns Generator.integers(low, high, size=n) for dtype int64:
// n values uniform in [low, high). Like NumPy, a range of one value draws
// nothing from the bit generator, and n == 0 draws nothing.
func (g *Generator) Integers(low, high int64, n int) ([]int64, error) {
	out := make([]int64, n)
	if n == 0 {
		return out, nil
	}
	if low >= high {
		return nil, ErrEmptyRange
	}
	rng := uint64(high-1) - uint64(low)
	off := uint64(low)
	switch {
	case rng == 0:
		for i := range out {
			out[i] = low
		}
	case rng == 0xFFFFFFFF:
		for i := range out {
			out[i] = int64(off + uint64(g.bg.Uint32()))
		}
	case rng < 0xFFFFFFFF:
		for i := range out {
			out[i] = int64(off + uint64(g.lemire32(uint32(rng))))
		}
	case rng == 0xFFFFFFFFFFFFFFFF:
		for i := range out {
			out[i] = int64(off + g.bg.Uint64())
		}
	default:
		for i := range out {
			out[i] = int64(off + g.lemire64(rng))
		}
	}
	return out, nil
}

// lemire32 is NumPy's buffered_bounded_lemire_uint32: a value in [0, rng],
// rng < 0xFFFFFFFF (the full 32-bit range takes a raw 32-bit draw instead,
// as NumPy 1.24 does).
func (g *Generator) lemire32(rng uint32) uint32 {
	excl := rng + 1
	m := uint64(g.bg.Uint32()) * uint64(excl)
	left := uint32(m)
	if left < excl {
		threshold := (0xFFFFFFFF - rng) % excl
		for left < threshold {
			m = uint64(g.bg.Uint32()) * uint64(excl)
			left = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// lemire64 is NumPy's bounded_lemire_uint64: a value in [0, rng].
func (g *Generator) lemire64(rng uint64) uint64 {
	excl := rng + 1
	hi, lo := bits.Mul64(g.bg.Uint64(), excl)
	if lo < excl {
		threshold := (0xFFFFFFFFFFFFFFFF - rng) % excl
		for lo < threshold {
			hi, lo = bits.Mul64(g.bg.Uint64(), excl)
		}
	}
	return hi
}
