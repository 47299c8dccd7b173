package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// DefaultResamples is how many bootstrap resamples compare draws: with
// 2,000 the percentile interval's ends move by well under a tenth of its
// width from one seed to another, and the smallest p it can give is
// 1/1000.
const DefaultResamples = 2000

// DefaultSeed seeds the bootstrap unless told otherwise, so the same two
// files always give the same p-values.
const DefaultSeed = 0x6c6c6d62656e6368 // "llmbench"

// BootstrapOptions configure BootstrapDiff. Zero values take the defaults.
type BootstrapOptions struct {
	// Resamples is the number of resamples; 0 = DefaultResamples.
	Resamples int
	// Seed seeds the resampling; 0 = DefaultSeed.
	Seed uint64
	// Confidence is the level of the interval; 0 = DefaultConfidence.
	Confidence float64
}

// Diff is the bootstrap view of the change of one statistic from sample
// A to sample B.
type Diff struct {
	// A and B are the statistic on the samples as given; Delta = B − A.
	A, B, Delta float64
	// Low and High bound the percentile interval of B* − A*.
	Low, High float64
	// RelLow and RelHigh bound the percentile interval of B*/A* − 1 (a
	// relative change, 0.03 = +3 %); NaN when a resampled A* is 0.
	RelLow, RelHigh float64
	// P is the two-sided p-value of "no change": twice the smaller share
	// of resampled differences on either side of 0 (each share counted
	// as (c+1)/(R+1), so never 0), at most 1.
	P float64
}

// WeightedStat computes statistics of a resample given as weights: w[i]
// is how many times unit i was drawn (all 1 for the sample itself). It
// writes its k statistics to out.
type WeightedStat func(w []int, out []float64)

// BootstrapDiff resamples the nA units of sample A and the nB units of B
// independently with replacement, each to its own size, evaluates k
// statistics of each resample (statA, statB, given the draw counts) and
// returns, per statistic, the percentile interval of the difference and
// its p-value. Passing counts instead of copies lets a statistic over
// pre-sorted data run in linear time (see Sample). The resampled unit is
// the caller's: pass requests, not their inter-token gaps, when a
// statistic pools values correlated within a request (ITL), so the
// correlation travels with the request. It assumes the units are
// independent draws. ok is false when either sample is empty. The
// statistics must be finite on every resample.
func BootstrapDiff(nA, nB, k int, statA, statB WeightedStat, o BootstrapOptions) ([]Diff, bool) {
	if nA < 1 || nB < 1 || k < 1 {
		return nil, false
	}
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if !validConf(o.Confidence) {
		o.Confidence = DefaultConfidence
	}
	R := o.Resamples
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	outA, outB := make([]float64, k), make([]float64, k)
	wA, wB := make([]int, nA), make([]int, nB)
	fill(wA, 1)
	fill(wB, 1)
	statA(wA, outA)
	statB(wB, outB)
	out := make([]Diff, k)
	for i := range out {
		out[i].A, out[i].B, out[i].Delta = outA[i], outB[i], outB[i]-outA[i]
	}
	diffs := make([][]float64, k)
	rels := make([][]float64, k)
	for i := range diffs {
		diffs[i] = make([]float64, R)
		rels[i] = make([]float64, R)
	}
	for r := range R {
		draw(rng, wA)
		draw(rng, wB)
		statA(wA, outA)
		statB(wB, outB)
		for i := range k {
			diffs[i][r] = outB[i] - outA[i]
			rels[i][r] = math.NaN()
			if outA[i] != 0 {
				rels[i][r] = outB[i]/outA[i] - 1
			}
		}
	}
	half := (1 - o.Confidence) / 2
	for i := range out {
		d := diffs[i]
		slices.Sort(d)
		out[i].Low, out[i].High = Quantile(d, half), Quantile(d, 1-half)
		le := sort.SearchFloat64s(d, math.Nextafter(0, 1)) // d ≤ 0
		ge := R - sort.SearchFloat64s(d, 0)                // d ≥ 0
		tail := float64(min(le, ge)+1) / float64(R+1)
		out[i].P = math.Min(1, 2*tail)
		rel := rels[i]
		if slices.ContainsFunc(rel, math.IsNaN) {
			out[i].RelLow, out[i].RelHigh = math.NaN(), math.NaN()
		} else {
			slices.Sort(rel)
			out[i].RelLow, out[i].RelHigh = Quantile(rel, half), Quantile(rel, 1-half)
		}
	}
	return out, true
}

func fill(w []int, v int) {
	for i := range w {
		w[i] = v
	}
}

// draw sets w to the counts of len(w) draws with replacement.
func draw(rng *rand.Rand, w []int) {
	fill(w, 0)
	n := len(w)
	for range n {
		w[rng.IntN(n)]++
	}
}

// Sample is a set of values grouped by unit (one TTFT per request, or a
// request's inter-token gaps), kept sorted once so that the mean and
// quantiles of any resample of its units come in one linear pass.
type Sample struct {
	values []float64 // ascending
	unit   []int32   // unit of values[i]
	units  int
}

// NewSample builds a Sample from groups: groups[u] are unit u's values.
func NewSample(groups [][]float64) *Sample {
	s := &Sample{units: len(groups)}
	type vu struct {
		v float64
		u int32
	}
	var all []vu
	for u, g := range groups {
		for _, v := range g {
			all = append(all, vu{v, int32(u)})
		}
	}
	slices.SortStableFunc(all, func(a, b vu) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	s.values = make([]float64, len(all))
	s.unit = make([]int32, len(all))
	for i, x := range all {
		s.values[i], s.unit[i] = x.v, x.u
	}
	return s
}

// NewSampleOf builds a Sample with one value per unit.
func NewSampleOf(values []float64) *Sample {
	groups := make([][]float64, len(values))
	for i := range values {
		groups[i] = values[i : i+1]
	}
	return NewSample(groups)
}

// Units is the number of units (the resampled things).
func (s *Sample) Units() int { return s.units }

// Len is the number of values.
func (s *Sample) Len() int { return len(s.values) }

// Stats returns a WeightedStat writing, for a resample given by unit
// weights, the mean followed by the qs-quantiles (ascending, in [0, 1];
// Quantile's linear interpolation) of the resample's values. A resample
// without values gives NaN.
func (s *Sample) Stats(qs []float64) WeightedStat {
	return func(w []int, out []float64) {
		total, sum := 0, 0.0
		for i, v := range s.values {
			c := w[s.unit[i]]
			total += c
			sum += float64(c) * v
		}
		if total == 0 {
			for i := range out {
				out[i] = math.NaN()
			}
			return
		}
		out[0] = sum / float64(total)
		// Walk the expanded, sorted resample once, picking the values at
		// ranks ⌊h⌋ and ⌊h⌋+1 for each quantile.
		qi, seen := 0, 0
		var lo, hi []int // ranks wanted per quantile
		for _, q := range qs {
			h := q * float64(total-1)
			l := int(math.Floor(h))
			lo = append(lo, l)
			hi = append(hi, min(l+1, total-1))
		}
		loV, hiV := make([]float64, len(qs)), make([]float64, len(qs))
		for i, v := range s.values {
			c := w[s.unit[i]]
			if c == 0 {
				continue
			}
			end := seen + c // this value holds ranks [seen, end)
			for j := qi; j < len(qs); j++ {
				if lo[j] >= seen && lo[j] < end {
					loV[j] = v
				}
				if hi[j] >= seen && hi[j] < end {
					hiV[j] = v
				}
			}
			for qi < len(qs) && hi[qi] < end {
				qi++
			}
			seen = end
		}
		for j, q := range qs {
			h := q * float64(total-1)
			f := h - math.Floor(h)
			out[1+j] = loV[j] + f*(hiV[j]-loV[j])
		}
	}
}
