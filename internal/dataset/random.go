package dataset

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/llmbench/llmbench/internal/numpyrand"
)

// maxDecodeRetries is vLLM's max_retry in gen_prompt_decode_to_target_len.
const maxDecodeRetries = 10

// lengthBounds is vLLM's get_sampling_params interval arithmetic: the input
// length after removing the tokenizer's special tokens, widened by the
// range ratio with floor/ceil, and an output interval of at least 1.
type lengthBounds struct {
	InputLow, InputHigh, OutputLow, OutputHigh int
}

func samplingBounds(inputLen, outputLen int, rr RangeRatio, numSpecial int) lengthBounds {
	realIn := max(0, inputLen-numSpecial)
	b := lengthBounds{
		InputLow:   int(math.Floor(float64(realIn) * (1 - rr.Input))),
		InputHigh:  int(math.Ceil(float64(realIn) * (1 + rr.Input))),
		OutputLow:  int(math.Floor(float64(outputLen) * (1 - rr.Output))),
		OutputHigh: int(math.Ceil(float64(outputLen) * (1 + rr.Output))),
	}
	b.OutputLow = max(b.OutputLow, 1)
	b.OutputHigh = max(b.OutputHigh, 1)
	return b
}

// drawLengths makes vLLM's three draws from default_rng(seed): N input
// lengths, N output lengths, N offsets in [0, vocab). Exposed to tests.
func drawLengths(g *numpyrand.Generator, n int, b lengthBounds, vocab int) (in, out, off []int64, err error) {
	if in, err = g.Integers(int64(b.InputLow), int64(b.InputHigh)+1, n); err != nil {
		return
	}
	if out, err = g.Integers(int64(b.OutputLow), int64(b.OutputHigh)+1, n); err != nil {
		return
	}
	off, err = g.Integers(0, int64(vocab), n)
	return
}

// allowedTokens is 0..vocab-1 without the special ids, ascending (the order
// CPython's set difference yields for these small ints).
func allowedTokens(vocab int, special []int) []int {
	banned := make(map[int]bool, len(special))
	for _, s := range special {
		banned[s] = true
	}
	out := make([]int, 0, vocab)
	for id := range vocab {
		if !banned[id] {
			out = append(out, id)
		}
	}
	return out
}

// decodeToTarget is vLLM's gen_prompt_decode_to_target_len: decode, re-encode
// without special tokens, pad with random ids from [0, vocab) (drawn from g)
// when short, truncate when long, at most maxDecodeRetries times. It returns
// the prompt, the final token ids and final-length minus target when the
// retries ran out (0 otherwise).
func decodeToTarget(tok Tokenizer, g *numpyrand.Generator, seq []int, target int) (string, []int, int, error) {
	st := startAdjust(tok, seq, target)
	if err := st.advance(tok, g); err != nil {
		return "", nil, 0, err
	}
	return st.prompt, st.seq, st.mismatch, nil
}

// adjustState is one prompt part-way through decodeToTarget's loop.
type adjustState struct {
	prompt   string
	seq      []int
	target   int
	remain   int
	done     bool
	mismatch int
}

// startAdjust does the loop's first decode/re-encode.
func startAdjust(tok Tokenizer, seq []int, target int) *adjustState {
	prompt := tok.Decode(seq)
	return &adjustState{prompt: prompt, seq: tok.Encode(prompt, false), target: target, remain: maxDecodeRetries}
}

// advance runs the loop until it ends. With g == nil it stops instead just
// before the first random draw (padding), leaving done false: everything
// up to there needs no randomness, so it can run ahead on all CPUs, and
// the draws are then made in request order, exactly as vLLM makes them.
func (st *adjustState) advance(tok Tokenizer, g *numpyrand.Generator) error {
	for !st.done {
		if st.remain <= 0 {
			st.done, st.mismatch = true, len(st.seq)-st.target
			return nil
		}
		switch {
		case len(st.seq) == st.target:
			st.done = true
			return nil
		case len(st.seq) < st.target:
			if g == nil {
				return nil
			}
			extra, err := g.Integers(0, int64(tok.VocabSize()), st.target-len(st.seq))
			if err != nil {
				return err
			}
			for _, e := range extra {
				st.seq = append(st.seq, int(e))
			}
		default:
			st.seq = st.seq[:st.target]
		}
		st.prompt = tok.Decode(st.seq)
		st.seq = tok.Encode(st.prompt, false)
		st.remain--
	}
	return nil
}

// adjustAhead starts every sequence's loop and runs it up to its first
// random draw, on all CPUs.
func adjustAhead(tok Tokenizer, seqs [][]int, targets []int) []*adjustState {
	states := make([]*adjustState, len(seqs))
	workers := min(runtime.GOMAXPROCS(0), len(seqs))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(seqs) {
					return
				}
				st := startAdjust(tok, seqs[i], targets[i])
				_ = st.advance(tok, nil) // no draws, so no error
				states[i] = st
			}
		}()
	}
	wg.Wait()
	return states
}

// randomChunk bounds how many prompts are held in memory between the
// parallel first round and the sequential (RNG-ordered) remainder.
const randomChunk = 256

// sampleRandom is vLLM's RandomDataset.sample (text only, batch size 1).
func sampleRandom(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	rr, err := ParseRangeRatio(cfg.RandomRangeRatio)
	if err != nil {
		return nil, nil, err
	}
	n := cfg.NumPrompts
	g, err := numpyrand.DefaultRNG(cfg.Seed)
	if err != nil {
		return nil, nil, configErrorf("%v", err)
	}
	var (
		vocab, numSpecial int
		special           []int
		warnings          []string
	)
	if tok != nil {
		vocab, numSpecial, special = tok.VocabSize(), tok.NumSpecialTokensToAdd(), tok.SpecialIDs()
		if vocab <= 0 {
			return nil, nil, fmt.Errorf("tokenizer %s reports vocabulary size %d", tok.ID(), vocab)
		}
	} else {
		vocab = len(fallbackWords)
		warnings = append(warnings, "random dataset without a tokenizer: prompts are built from words and every word is counted as one token, so prompt lengths are approximate")
	}

	realIn := max(0, cfg.RandomInputLen-numSpecial)
	minSampled := int(math.Floor(float64(realIn) * (1 - rr.Input)))
	if cfg.RandomPrefixLen+minSampled < 1 {
		return nil, warnings, configErrorf("--random-input-len is too small: with tokenizer special tokens %d and input range ratio %g, the minimum possible total input tokens (prefix + sampled) is %d; increase --random-input-len or --random-prefix-len, or decrease the range ratio",
			numSpecial, rr.Input, cfg.RandomPrefixLen+minSampled)
	}
	b := samplingBounds(cfg.RandomInputLen, cfg.RandomOutputLen, rr, numSpecial)
	inLens, outLens, offsets, err := drawLengths(g, n, b, vocab)
	if err != nil {
		return nil, warnings, err
	}
	if cfg.InputLenDist != "" {
		// Ours: the distribution replaces the range-ratio input lengths.
		// vLLM's draws above still happen so offsets stay where NumPy has them.
		d, _ := ParseLengthDist(cfg.InputLenDist)
		for i, l := range d.Sample(cfg.Seed, 0, n) {
			inLens[i] = int64(max(0, l-numSpecial))
		}
	}

	allowed := allowedTokens(vocab, special)
	if len(allowed) == 0 {
		return nil, warnings, fmt.Errorf("tokenizer %s has no non-special tokens", tok.ID())
	}
	var prefix []int
	if cfg.RandomPrefixLen > 0 {
		idx, err := g.Integers(0, int64(len(allowed)), cfg.RandomPrefixLen)
		if err != nil {
			return nil, warnings, err
		}
		prefix = make([]int, len(idx))
		for i, j := range idx {
			prefix[i] = allowed[j]
		}
		if tok != nil {
			var mismatch int
			_, prefix, mismatch, err = decodeToTarget(tok, g, prefix, cfg.RandomPrefixLen)
			if err != nil {
				return nil, warnings, err
			}
			if mismatch != 0 {
				warnings = append(warnings, fmt.Sprintf("prefix tokenization produced %d %s tokens than expected after decoding and re-encoding (vLLM does the same)", abs(mismatch), moreFewer(mismatch)))
			}
		}
	}

	reqs := make([]Request, n)
	mismatchTotal := 0
	body := func(i int) []int {
		inLen := int(inLens[i])
		seq := make([]int, 0, len(prefix)+inLen)
		seq = append(seq, prefix...)
		base := int(offsets[i]) + i
		for k := range inLen {
			seq = append(seq, allowed[(base+k)%len(allowed)])
		}
		return seq
	}
	for lo := 0; lo < n; lo += randomChunk {
		if err := ctx.Err(); err != nil {
			return nil, warnings, err
		}
		hi := min(n, lo+randomChunk)
		seqs := make([][]int, hi-lo)
		for i := range seqs {
			seqs[i] = body(lo + i)
		}
		if tok == nil {
			for i, seq := range seqs {
				reqs[lo+i] = Request{Prompt: joinWords(seq), PromptLen: len(seq), OutputLen: int(outLens[lo+i]), PrefixID: -1}
			}
			continue
		}
		targets := make([]int, len(seqs))
		for i := range targets {
			targets[i] = cfg.RandomPrefixLen + int(inLens[lo+i])
		}
		for i, st := range adjustAhead(tok, seqs, targets) {
			if err := st.advance(tok, g); err != nil {
				return nil, warnings, err
			}
			mismatchTotal += st.mismatch
			reqs[lo+i] = Request{Prompt: st.prompt, PromptLen: len(st.seq), OutputLen: int(outLens[lo+i]), PrefixID: -1}
		}
	}
	if mismatchTotal != 0 {
		warnings = append(warnings, fmt.Sprintf("across all generated prompts, there were %d %s tokens than expected after decoding and re-encoding (vLLM's sampler has the same imperfection)", abs(mismatchTotal), moreFewer(mismatchTotal)))
	}
	return reqs, warnings, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func moreFewer(x int) string {
	if x > 0 {
		return "more"
	}
	return "fewer"
}

func joinWords(ids []int) string {
	n := max(len(ids)-1, 0)
	for _, id := range ids {
		n += len(fallbackWords[id%len(fallbackWords)])
	}
	var sb strings.Builder
	sb.Grow(n)
	for i, id := range ids {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(fallbackWords[id%len(fallbackWords)])
	}
	return sb.String()
}

// fallbackWords stand in for a vocabulary when no tokenizer is available.
// Common short English words: most are one token in GPT-2/Llama-style
// vocabularies when preceded by a space, so word counts are a fair guess.
var fallbackWords = slices.Clip(strings.Fields(`
the of and to in is was for on that with as by at from it his an were are
which this be or has had not but first one their its new after who they have
her she two been other when there all during into school time may years more
most only over city some world would where later up such used many can state
about national out known university united then made series him team between
both under year film season three part well new age end work game river day
home town long family center high place while before number state since name
people world light water music book house group north south east west road
line point market story power field level order voice table paper space hand
head body face mind heart eye door window room floor wall city garden tree
stone fire earth wind rain snow cloud star moon sun sea island hill valley
forest lake bridge tower castle church farm village station harbor coast plain
red blue green black white gold silver small large great little old young good
bad early late short quick slow warm cold dark bright clear quiet loud free
open close begin keep move turn stand sit walk run read write speak listen
think know see look find give take bring send build grow learn teach travel
plan check change start stop hold carry follow lead meet help ask answer call
show try use need want like love hope feel seem leave return reach pass cross
`))
