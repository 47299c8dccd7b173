package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/llmbench/llmbench/internal/numpyrand"
	"github.com/llmbench/llmbench/internal/pyrand"
)

// samplePrefixRepetition is vLLM's PrefixRepetitionRandomDataset: NumPrefixes
// prefixes of PrefixLen random ids from the whole vocabulary, each followed
// by its own SuffixLen-token random suffixes, NumPrefixes × (N / NumPrefixes)
// requests, then a Python shuffle. Token ids come from NumPy's legacy global
// generator seeded with --seed, padding during the decode/re-encode
// adjustment too, exactly as in vLLM.
//
// With PrefixRepetitionZipf > 0 (ours) each of the N requests picks its
// prefix with probability ∝ 1/(k+1)^s (k = 0 is the hottest), drawn from a
// PCG seeded with --seed; the prefixes themselves are generated first, as
// above, so the same seed gives the same prefix texts either way.
func samplePrefixRepetition(cfg Config, tok Tokenizer) ([]Request, []string, error) {
	if tok == nil {
		return nil, nil, configErrorf("--dataset-name prefix_repetition needs a tokenizer (it builds prompts from token ids)")
	}
	n := cfg.NumPrompts
	numPrefixes := cfg.PrefixRepetitionNumPrefixes
	perPrefix := n / numPrefixes
	if perPrefix == 0 {
		return nil, nil, configErrorf("--num-prompts (%d) must be greater than or equal to --prefix-repetition-num-prefixes (%d)", n, numPrefixes)
	}
	rs, err := numpyrand.NewRandomState(cfg.Seed)
	if err != nil {
		return nil, nil, configErrorf("prefix_repetition: %v", err)
	}
	vocab := int64(tok.VocabSize())
	mismatchTotal := 0
	exact := func(target int) ([]int, error) {
		ids, err := rs.Randint(0, vocab, target)
		if err != nil {
			return nil, err
		}
		seq := make([]int, len(ids))
		for i, v := range ids {
			seq[i] = int(v)
		}
		// vLLM passes no rng here, so padding also comes from the legacy
		// global generator.
		remain := maxDecodeRetries
		for {
			seq = tok.Encode(tok.Decode(seq), false)
			if remain <= 0 {
				mismatchTotal += len(seq) - target
				return seq, nil
			}
			switch {
			case len(seq) == target:
				return seq, nil
			case len(seq) < target:
				extra, err := rs.Randint(0, vocab, target-len(seq))
				if err != nil {
					return nil, err
				}
				for _, e := range extra {
					seq = append(seq, int(e))
				}
			default:
				seq = seq[:target]
			}
			remain--
		}
	}
	build := func(prefix []int, id int) (Request, error) {
		suffix, err := exact(cfg.PrefixRepetitionSuffixLen)
		if err != nil {
			return Request{}, err
		}
		combined := append(append(make([]int, 0, len(prefix)+len(suffix)), prefix...), suffix...)
		return Request{Prompt: tok.Decode(combined), PromptLen: len(combined), OutputLen: cfg.PrefixRepetitionOutputLen, PrefixID: id}, nil
	}

	var reqs []Request
	if cfg.PrefixRepetitionZipf <= 0 {
		for p := range numPrefixes {
			prefix, err := exact(cfg.PrefixRepetitionPrefixLen)
			if err != nil {
				return nil, nil, err
			}
			for range perPrefix {
				r, err := build(prefix, p)
				if err != nil {
					return nil, nil, err
				}
				reqs = append(reqs, r)
			}
		}
		if !cfg.DisableShuffle {
			pr := pyrand.New(cfg.Seed)
			pr.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
		}
	} else {
		prefixes := make([][]int, numPrefixes)
		for p := range prefixes {
			if prefixes[p], err = exact(cfg.PrefixRepetitionPrefixLen); err != nil {
				return nil, nil, err
			}
		}
		pick := zipfPicker(numPrefixes, cfg.PrefixRepetitionZipf, cfg.Seed)
		for range n {
			p := pick()
			r, err := build(prefixes[p], p)
			if err != nil {
				return nil, nil, err
			}
			reqs = append(reqs, r)
		}
	}
	var warnings []string
	if mismatchTotal != 0 {
		warnings = append(warnings, fmt.Sprintf("across all generated prompts, there were %d %s tokens than expected after decoding and re-encoding (vLLM's sampler has the same imperfection)", abs(mismatchTotal), moreFewer(mismatchTotal)))
	}
	if n%numPrefixes != 0 && cfg.PrefixRepetitionZipf <= 0 {
		warnings = append(warnings, fmt.Sprintf("prefix_repetition: %d prompts requested, %d generated (%d prefixes × %d), as vLLM does", n, len(reqs), numPrefixes, perPrefix))
	}
	return reqs, warnings, nil
}

// zipfPicker returns a function drawing k in [0, n) with probability
// ∝ 1/(k+1)^s, by inverting the cumulative weights. Example: n = 3, s = 1
// gives weights 1, 1/2, 1/3, i.e. probabilities 6/11, 3/11, 2/11.
func zipfPicker(n int, s float64, seed int64) func() int {
	cum := make([]float64, n)
	total := 0.0
	for k := range n {
		total += 1 / math.Pow(float64(k+1), s)
		cum[k] = total
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x7a697066))
	return func() int {
		u := r.Float64() * total
		k := sort.SearchFloat64s(cum, u)
		if k >= n {
			k = n - 1
		}
		return k
	}
}

// SharedPrefixes reports whether c builds prompts on common prefixes
// (prefix_repetition, sonnet, random with --random-prefix-len), where
// prefix-cache hits are the point, not contamination.
func (c *Config) SharedPrefixes() bool {
	switch c.Name {
	case PrefixRepetition, Sonnet:
		return true
	case Random:
		return c.RandomPrefixLen > 0
	}
	return false
}
