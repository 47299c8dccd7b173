package stats

import (
	"math"
	"math/bits"
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
	// as (c+1)/(R+1), so never 0), at most 1. Resamples on which a
	// statistic is NaN (no values drawn for it) are left out; NaN when
	// every one was.
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
// independent draws. ok is false when either sample is empty. A
// statistic may be NaN on a resample that drew no values for it.
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
		// A resample can lack values for a statistic (no multi-token
		// request drawn for TPOT): it says nothing and is left out.
		d := slices.DeleteFunc(diffs[i], math.IsNaN)
		if len(d) == 0 {
			out[i].Low, out[i].High, out[i].RelLow, out[i].RelHigh, out[i].P = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
			continue
		}
		slices.Sort(d)
		out[i].Low, out[i].High = Quantile(d, half), Quantile(d, 1-half)
		le := sort.SearchFloat64s(d, math.Nextafter(0, 1)) // d ≤ 0
		ge := len(d) - sort.SearchFloat64s(d, 0)           // d ≥ 0
		tail := float64(min(le, ge)+1) / float64(len(d)+1)
		out[i].P = math.Min(1, 2*tail)
		rel := slices.DeleteFunc(rels[i], math.IsNaN)
		if len(rel) < len(d) {
			// Some resampled A* was 0: no relative interval.
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

// draw sets w to the counts of len(w) draws with replacement. The index
// is the high word of a 64-bit draw times n (Lemire's reduction without
// the rejection step: its bias, n/2⁶⁴, is far below anything 2,000
// resamples could show, and it halves the cost of a resample).
func draw(rng *rand.Rand, w []int) {
	fill(w, 0)
	n := uint64(len(w))
	for range n {
		hi, _ := bits.Mul64(rng.Uint64(), n)
		w[hi]++
	}
}

// Sample is a set of values grouped by unit (one TTFT per request, or a
// request's inter-token gaps), kept sorted once so that the mean and
// quantiles of any resample of its units come without sorting again.
//
// The mean of a resample needs only each unit's sum and count. A quantile
// needs the value at a weighted rank of the sorted values; walking all of
// them costs O(values) per resample, which for pooled ITL (a hundred gaps
// a request) is a hundred times the units. So the sorted values carry
// checkpoints: at each, how many values of every unit lie before it. A
// resample's weighted count before a checkpoint is then O(units), a
// binary search over checkpoints brackets the rank, and only the values
// between two checkpoints are walked.
type Sample struct {
	values []float64 // ascending
	unit   []int32   // unit of values[i]
	units  int
	sum    []float64 // per unit
	count  []int     // per unit
	// ckPos[c] is a position in values; ckCum[c][u] counts unit u's
	// values before it. Empty when the values are few per unit (a walk
	// is then as cheap as a checkpoint).
	ckPos []int
	ckCum [][]int32
}

// maxCheckpointCells bounds checkpoints × units (memory: 4 bytes each).
const maxCheckpointCells = 1 << 22

// NewSample builds a Sample from groups: groups[u] are unit u's values.
func NewSample(groups [][]float64) *Sample {
	s := &Sample{units: len(groups), sum: make([]float64, len(groups)), count: make([]int, len(groups))}
	type vu struct {
		v float64
		u int32
	}
	var all []vu
	for u, g := range groups {
		for _, v := range g {
			all = append(all, vu{v, int32(u)})
			s.sum[u] += v
		}
		s.count[u] = len(g)
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
	n := len(all)
	if s.units > 0 && n >= 8*s.units {
		k := min(n/s.units, 1024, maxCheckpointCells/s.units)
		cur := make([]int32, s.units)
		next := 0
		for c := range k {
			pos := c * n / k
			for ; next < pos; next++ {
				cur[s.unit[next]]++
			}
			s.ckPos = append(s.ckPos, pos)
			s.ckCum = append(s.ckCum, slices.Clone(cur))
		}
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
// weights, the mean followed by the qs-quantiles (each in [0, 1];
// Quantile's linear interpolation) of the resample's values. A resample
// without values gives NaN.
func (s *Sample) Stats(qs []float64) WeightedStat {
	return func(w []int, out []float64) {
		total, sum := 0, 0.0
		for u, c := range w {
			total += c * s.count[u]
			sum += float64(c) * s.sum[u]
		}
		if total == 0 {
			for i := range out {
				out[i] = math.NaN()
			}
			return
		}
		out[0] = sum / float64(total)
	next:
		for j, q := range qs {
			for k := range j { // median and p50 are one quantile
				if qs[k] == q {
					out[1+j] = out[1+k]
					continue next
				}
			}
			h := q * float64(total-1)
			r := int(math.Floor(h))
			lo := s.valueAt(w, r, total)
			hi := lo
			if f := h - float64(r); f > 0 && r+1 < total {
				hi = s.valueAt(w, r+1, total)
				out[1+j] = lo + f*(hi-lo)
			} else {
				out[1+j] = lo
			}
		}
	}
}

// valueAt is the value at 0-based rank r of the resample weighted by w,
// total values in all (r < total). High ranks (p99) are walked from the
// top, where few values lie beyond them.
func (s *Sample) valueAt(w []int, r, total int) float64 {
	if len(s.ckPos) == 0 && r >= total/2 {
		above := total - 1 - r // values ranked above r
		seen := 0
		for i := len(s.values) - 1; i >= 0; i-- {
			seen += w[s.unit[i]]
			if seen > above {
				return s.values[i]
			}
		}
		return s.values[0]
	}
	start, seen := 0, 0
	if len(s.ckPos) > 0 {
		// The last checkpoint whose weighted count before it is ≤ r.
		c := sort.Search(len(s.ckPos), func(c int) bool { return s.weightBefore(w, c) > r }) - 1
		if c > 0 {
			start, seen = s.ckPos[c], s.weightBefore(w, c)
		}
	}
	for i := start; i < len(s.values); i++ {
		seen += w[s.unit[i]]
		if seen > r {
			return s.values[i]
		}
	}
	return s.values[len(s.values)-1]
}

// weightBefore is the resample's count of values before checkpoint c.
func (s *Sample) weightBefore(w []int, c int) int {
	n := 0
	for u, k := range s.ckCum[c] {
		n += w[u] * int(k)
	}
	return n
}
