package dataset

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/numpyrand"
)

// burstRow is one usable row of a BurstGPT CSV file.
type burstRow struct {
	line              int
	timestamp         float64
	request, response int
}

// BurstGPT CSV columns vLLM reads.
const (
	burstModel     = "Model"
	burstRequest   = "Request tokens"
	burstResponse  = "Response tokens"
	burstTimestamp = "Timestamp"
	burstGPT4      = "GPT-4"
)

// loadBurstGPT is vLLM's burstgpt dataset: the BurstGPT trace CSV
// (Timestamp, Model, Request tokens, Response tokens, Total tokens, Log
// Type), keeping rows whose Model is "GPT-4" and whose Response tokens are
// positive (zero marks a failed request in the trace). vLLM samples
// --num-prompts rows with pandas' DataFrame.sample(random_state=--seed)
// (with replacement when there are too few), reproduced here with NumPy's
// legacy RandomState. Only the token counts are used: request i's prompt is
// the decoded ids (i + j) mod vocab_size for j < Request tokens, its
// prompt_len is Request tokens and its output length Response tokens.
//
// Beyond vLLM, which ignores the timestamps: with --self-timed the first
// --num-prompts rows are taken in file order and replayed on their
// timestamps, shifted so the first row is due at the start and scaled by
// --timed-trace-sec-multiplier (Request.Arrival).
func loadBurstGPT(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	rows, err := readBurstGPT(ctx, cfg.Path)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	n := cfg.NumPrompts
	var picked []int
	if cfg.selfTimed() {
		if len(rows) < n {
			warnings = append(warnings, fmt.Sprintf("%s has %d usable GPT-4 rows, fewer than --num-prompts %d: replaying %d", cfg.Path, len(rows), n, len(rows)))
			n = len(rows)
		}
		picked = make([]int, n)
		for i := range picked {
			picked[i] = i
		}
	} else if picked, err = pandasSample(len(rows), n, cfg.Seed); err != nil {
		return nil, nil, err
	}
	vocab := len(fallbackWords)
	if tok != nil {
		vocab = tok.VocabSize()
	} else {
		warnings = append(warnings, "burstgpt without a tokenizer: prompts are built from words and every word counts as one token, so prompt lengths are approximate")
	}
	if vocab <= 0 {
		return nil, warnings, fmt.Errorf("%w: tokenizer %s reports vocabulary size %d", ErrBadConfig, tok.ID(), vocab)
	}
	reqs := make([]Request, n)
	for i, k := range picked {
		row := rows[k]
		ids := make([]int, row.request)
		for j := range ids {
			ids[j] = (i + j) % vocab
		}
		r := Request{PromptLen: row.request, OutputLen: row.response, PrefixID: -1}
		if tok != nil {
			r.Prompt = tok.Decode(ids)
		} else {
			r.Prompt = joinWords(ids)
		}
		if cfg.selfTimed() {
			sec := (row.timestamp - rows[picked[0]].timestamp) * cfg.TimedTraceSecMultiplier
			r.Arrival, r.HasArrival = time.Duration(math.Round(sec*1e9)), true
		}
		reqs[i] = r
	}
	return reqs, warnings, nil
}

// readBurstGPT reads the usable rows (GPT-4, Response tokens > 0) of a
// BurstGPT CSV file; errors name the file and line.
func readBurstGPT(ctx context.Context, path string) ([]burstRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: no CSV header: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, need := range []string{burstModel, burstRequest, burstResponse} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s:1: no %q column (want BurstGPT's Timestamp,Model,Request tokens,Response tokens,...)", path, need)
		}
	}
	var rows []burstRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A csv.ParseError names the line itself.
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		if line%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		row, keep, err := parseBurstRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if keep {
			row.line = line
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows with Model %q and positive %q", path, burstGPT4, burstResponse)
	}
	return rows, nil
}

// parseBurstRow reads one CSV record; keep is false for rows vLLM drops.
func parseBurstRow(rec []string, col map[string]int) (burstRow, bool, error) {
	field := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	if field(burstModel) != burstGPT4 {
		return burstRow{}, false, nil
	}
	var r burstRow
	var err error
	if r.response, err = burstCount(field(burstResponse), burstResponse); err != nil || r.response <= 0 {
		return r, false, err
	}
	if r.request, err = burstCount(field(burstRequest), burstRequest); err != nil {
		return r, false, err
	}
	if ts := field(burstTimestamp); ts != "" {
		if r.timestamp, err = strconv.ParseFloat(ts, 64); err != nil || math.IsNaN(r.timestamp) || math.IsInf(r.timestamp, 0) {
			return r, false, fmt.Errorf("%s %q is not a number of seconds", burstTimestamp, ts)
		}
	}
	return r, true, nil
}

// burstCount parses a token count (pandas reads "12" and "12.0" alike).
func burstCount(s, name string) (int, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > maxLength {
		return 0, fmt.Errorf("%s %q is not a whole number of tokens up to %d", name, s, maxLength)
	}
	return int(f), nil
}

// pandasSample returns the row indices pandas' DataFrame.sample(n=n,
// random_state=seed) picks from size rows: RandomState(seed).choice(size,
// n, replace=False), i.e. permutation(size)[:n], or with replace=True
// (vLLM's choice when n > size) randint(0, size, n).
func pandasSample(size, n int, seed int64) ([]int, error) {
	rs, err := numpyrand.NewRandomState(seed)
	if err != nil {
		return nil, configErrorf("burstgpt: %v", err)
	}
	out := make([]int, n)
	if n > size {
		draws, err := rs.Randint(0, int64(size), n)
		if err != nil {
			return nil, err
		}
		for i, d := range draws {
			out[i] = int(d)
		}
		return out, nil
	}
	perm := make([]int, size)
	for i := range perm {
		perm[i] = i
	}
	// Legacy RandomState.shuffle: for i from size-1 down to 1, swap with
	// random_interval(i) (a masked 32-bit draw, rejected above i).
	for i := size - 1; i > 0; i-- {
		mask := uint32(i)
		mask |= mask >> 1
		mask |= mask >> 2
		mask |= mask >> 4
		mask |= mask >> 8
		mask |= mask >> 16
		j := rs.Uint32() & mask
		for j > uint32(i) {
			j = rs.Uint32() & mask
		}
		perm[i], perm[j] = perm[j], perm[i]
	}
	copy(out, perm[:n])
	return out, nil
}
