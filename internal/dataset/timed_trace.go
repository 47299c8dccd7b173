package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// maxTraceLineBytes bounds one line of a timed trace (a line carries a few
// numbers and a hash-id list, but a million-token request lists 60k ids).
const maxTraceLineBytes = 64 << 20

// maxArrival bounds a trace time: beyond it time.Duration overflows.
const maxArrival = float64(math.MaxInt64 / int64(time.Second))

// traceEntry is one parsed line of a timed trace.
type traceEntry struct {
	line             int
	inputLen, output int
	hashIDs          []int64
	seconds          float64 // timestamp × multiplier
}

// loadTimedTrace is vLLM's timed_trace dataset (Mooncake / Alibaba traces):
// one JSON object per line with a timestamp, an input length, an output
// length and a list of hash ids, each id standing for a block of
// --timed-trace-chunk-hash-size prompt tokens. Lines are taken in file
// order, without shuffling or oversampling, until --num-prompts.
//
// Prompt construction: every hash id maps to one block of token ids drawn
// from the vocabulary without special tokens, the same block wherever the
// id appears, so requests that share leading hash ids share leading tokens
// (a prefix cache sees the reuse the trace recorded). The last block is
// cut to what input_length leaves (a prefix of the id's full block), and a
// trace with too few ids gives a shorter prompt, as in vLLM. The ids are
// sent as token ids (Request.PromptIDs); Prompt is their decoded text.
//
// Each request's Arrival is timestamp × --timed-trace-sec-multiplier
// seconds after the start of the benchmark when self-timed (the default):
// vLLM does not subtract the first timestamp, so a trace whose clock
// starts at 1000 s sends nothing for 1000 s (a warning says so).
func loadTimedTrace(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	entries, err := readTimedTrace(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if len(entries) < cfg.NumPrompts {
		warnings = append(warnings, fmt.Sprintf("%s has %d entries, fewer than --num-prompts %d: sending %d requests (a trace is not oversampled)", cfg.Path, len(entries), cfg.NumPrompts, len(entries)))
	}
	blocks, vocab, wordBased := newBlockMaker(cfg.TimedTraceChunkHashSize, tok)
	if wordBased {
		warnings = append(warnings, "timed_trace without a tokenizer: each hash block is built from words and every word counts as one token, so prompt lengths are approximate")
	}
	if len(vocab) == 0 {
		return nil, warnings, fmt.Errorf("%w: tokenizer %s has no ids left once special tokens are removed", ErrBadConfig, tok.ID())
	}
	short := 0
	reqs := make([]Request, 0, len(entries))
	for _, e := range entries {
		ids := blocks.expand(e.hashIDs, e.inputLen)
		if len(ids) < e.inputLen {
			short++
		}
		r := Request{PromptLen: len(ids), OutputLen: e.output, PrefixID: -1}
		if wordBased {
			r.Prompt = joinWords(ids)
		} else {
			r.Prompt, r.PromptIDs = tok.Decode(ids), ids
		}
		if cfg.selfTimed() {
			r.Arrival, r.HasArrival = time.Duration(math.Round(e.seconds*1e9)), true
		}
		reqs = append(reqs, r)
	}
	if short > 0 {
		warnings = append(warnings, fmt.Sprintf("%d trace entries list too few hash ids for their input_length (at --timed-trace-chunk-hash-size %d); their prompts are shorter, as in vLLM", short, cfg.TimedTraceChunkHashSize))
	}
	if len(reqs) > 0 && reqs[0].HasArrival && reqs[0].Arrival > time.Minute {
		warnings = append(warnings, fmt.Sprintf("the first trace request is due %s after the start (timestamps are not shifted to start at 0, as in vLLM); scale them with --timed-trace-sec-multiplier if that is not meant", reqs[0].Arrival))
	}
	return reqs, warnings, nil
}

// readTimedTrace parses the first cfg.NumPrompts entries of the trace.
func readTimedTrace(ctx context.Context, cfg Config) ([]traceEntry, error) {
	f, err := os.Open(cfg.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []traceEntry
	err = scanJSONLines(cfg.Path, f, func(line int, obj map[string]json.RawMessage) (bool, error) {
		if line%1024 == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		e, err := parseTraceEntry(cfg, obj)
		if err != nil {
			return false, fmt.Errorf("%s:%d: %w", cfg.Path, line, err)
		}
		e.line = line
		out = append(out, e)
		return len(out) < cfg.NumPrompts, nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no trace entries", cfg.Path)
	}
	return out, nil
}

// parseTraceEntry reads the four labelled fields of one trace object.
func parseTraceEntry(cfg Config, obj map[string]json.RawMessage) (traceEntry, error) {
	var e traceEntry
	var err error
	if e.inputLen, err = traceInt(obj, cfg.TimedTraceLabelInputLength, "--timed-trace-label-input-length"); err != nil {
		return e, err
	}
	if e.output, err = traceInt(obj, cfg.TimedTraceLabelOutputLength, "--timed-trace-label-output-length"); err != nil {
		return e, err
	}
	raw, ok := obj[cfg.TimedTraceLabelTimestamp]
	if !ok || string(raw) == "null" {
		return e, fmt.Errorf("no %q field (the timestamp; set its name with --timed-trace-label-timestamp)", cfg.TimedTraceLabelTimestamp)
	}
	ts, err := traceFloat(raw)
	if err != nil {
		return e, fmt.Errorf("%q: %v", cfg.TimedTraceLabelTimestamp, err)
	}
	e.seconds = ts * cfg.TimedTraceSecMultiplier
	if math.IsInf(e.seconds, 0) || math.Abs(e.seconds) > maxArrival {
		return e, fmt.Errorf("%q: %v × --timed-trace-sec-multiplier %v is out of range", cfg.TimedTraceLabelTimestamp, ts, cfg.TimedTraceSecMultiplier)
	}
	if raw, ok := obj[cfg.TimedTraceLabelHashIDs]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &e.hashIDs); err != nil {
			return e, fmt.Errorf("%q must be a list of integers (set its name with --timed-trace-label-hash-ids)", cfg.TimedTraceLabelHashIDs)
		}
	}
	return e, nil
}

// traceInt reads a non-negative integer field (an integral JSON number).
func traceInt(obj map[string]json.RawMessage, key, flag string) (int, error) {
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		return 0, fmt.Errorf("no %q field (set its name with %s)", key, flag)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f < 0 || f != math.Trunc(f) || f > maxLength {
		return 0, fmt.Errorf("%q is %s, want a whole number of tokens up to %d", key, raw, maxLength)
	}
	return int(f), nil
}

// traceFloat reads a timestamp: a JSON number or a numeric string (some
// traces write nanosecond timestamps as strings), like Python's float().
func traceFloat(raw json.RawMessage) (float64, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, err
	}
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case string:
		var err error
		if f, err = strconv.ParseFloat(t, 64); err != nil {
			return 0, fmt.Errorf("%q is not a number", t)
		}
	default:
		return 0, fmt.Errorf("%s is not a number", raw)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s is not a finite number", raw)
	}
	return f, nil
}

// scanJSONLines calls fn for each non-blank line of r, parsed as a JSON
// object, with its 1-based line number, until fn returns false or an
// error. Errors name path and line.
func scanJSONLines(path string, r io.Reader, fn func(line int, obj map[string]json.RawMessage) (bool, error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLineBytes)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // UTF-8 BOM
		}
		if len(b) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return fmt.Errorf("%s:%d: not a JSON object (want one JSON object per line)", path, line)
		}
		more, err := fn(line, obj)
		if err != nil || !more {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	return nil
}

// blockMaker turns hash ids into token blocks: block(h) is chunk ids drawn
// with Python's random.Random(seed(h)).choices(vocab, k=chunk), vocab being
// the ascending ids without special tokens, so a cut block is a prefix of
// the full one. vLLM seeds with Python's hash() of "id:size", which changes
// with PYTHONHASHSEED from one process to the next, so its blocks cannot be
// reproduced; seed(h) here is the 32-bit FNV-1a hash of the id's decimal
// text, the same in every run.
type blockMaker struct {
	chunk int
	vocab []int
	cache map[int64][]int
}

// newBlockMaker returns a blockMaker over tok's vocabulary, or over the
// fallback words (wordBased) without a tokenizer.
func newBlockMaker(chunk int, tok Tokenizer) (b *blockMaker, vocab []int, wordBased bool) {
	if tok == nil {
		vocab = make([]int, len(fallbackWords))
		for i := range vocab {
			vocab[i] = i
		}
		wordBased = true
	} else {
		vocab = allowedTokens(tok.VocabSize(), tok.SpecialIDs())
	}
	return &blockMaker{chunk: chunk, vocab: vocab, cache: map[int64][]int{}}, vocab, wordBased
}

// expand is vLLM's _expand_prompt: blocks of the hash ids in order, the
// last one cut to the tokens inputLen leaves, stopping once inputLen
// tokens are reached.
func (b *blockMaker) expand(hashIDs []int64, inputLen int) []int {
	out := make([]int, 0, min(inputLen, len(hashIDs)*b.chunk))
	remaining := inputLen
	for _, h := range hashIDs {
		if remaining <= 0 {
			break
		}
		n := min(b.chunk, remaining)
		out = append(out, b.block(h)[:n]...)
		remaining -= n
	}
	return out
}

// block returns the full block of hash id h.
func (b *blockMaker) block(h int64) []int {
	if blk, ok := b.cache[h]; ok {
		return blk
	}
	fh := fnv.New32a()
	fh.Write([]byte(strconv.FormatInt(h, 10)))
	r := pyrand.New(int64(fh.Sum32()))
	blk := make([]int, b.chunk)
	n := float64(len(b.vocab))
	for i := range blk {
		// random.choices without weights: population[floor(random() * n)].
		blk[i] = b.vocab[int(math.Floor(pyRandom(r)*n))]
	}
	b.cache[h] = blk
	return blk
}

// pyRandom is CPython's random.random(): 53 random bits from two MT19937
// outputs, (a>>5 · 2^26 + b>>6) / 2^53.
func pyRandom(r *pyrand.Rand) float64 {
	a := r.Uint32() >> 5
	b := r.Uint32() >> 6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}

// TraceSchedule returns each request's send offset from the start of the
// benchmark when the requests carry trace times (Request.HasArrival), and
// false when none does (then --request-rate schedules them).
//
// It follows vLLM's dispatch loop, which walks the requests in order and
// sleeps until start + timestamp only when that is still ahead: a request
// whose time has already passed (a negative timestamp, or one earlier than
// its predecessor's) goes out right after its predecessor. So the offset
// of request i is the largest arrival among requests 0..i, and never
// negative. Requests without a trace time count as 0, as in vLLM.
// Example: arrivals 1s, 3s, 2s, 4s give offsets 1s, 3s, 3s, 4s.
func TraceSchedule(reqs []Request) ([]time.Duration, bool) {
	timed := false
	for i := range reqs {
		timed = timed || reqs[i].HasArrival
	}
	if !timed {
		return nil, false
	}
	out := make([]time.Duration, len(reqs))
	var latest time.Duration
	for i := range reqs {
		if reqs[i].HasArrival && reqs[i].Arrival > latest {
			latest = reqs[i].Arrival
		}
		out[i] = latest
	}
	return out, true
}
