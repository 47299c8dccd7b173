package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// ShareGPT filtering bounds (vLLM's is_valid_sequence defaults).
const (
	minSeqLen       = 4
	maxPromptLen    = 1024
	maxTotalSeqLen  = 2048
	defaultCustomOL = 256
)

// isValidSequence is vLLM's is_valid_sequence with its default bounds.
func isValidSequence(promptLen, outputLen int, skipMinOutput bool) bool {
	promptTooShort := promptLen < minSeqLen
	outputTooShort := !skipMinOutput && outputLen < minSeqLen
	promptTooLong := promptLen > maxPromptLen
	combinedTooLong := promptLen+outputLen > maxTotalSeqLen
	return !(promptTooShort || outputTooShort || promptTooLong || combinedTooLong)
}

// shareGPTEntry is one kept conversation: the raw first two turns, the
// raw "conversations" list (--multi-turn reads all its turns) and where
// the entry starts in the file (for error messages).
type shareGPTEntry struct {
	turns [2]json.RawMessage // the first two (the second nil with one turn)
	conv  json.RawMessage    // the whole list, aliasing the file's bytes
	index int                // position in the file's top-level array
	line  int
}

// lineCounter maps byte offsets of one in-memory file to 1-based lines,
// for offsets that only grow.
type lineCounter struct {
	data []byte
	pos  int
	line int
}

func (l *lineCounter) at(off int64) int {
	o := min(int(off), len(l.data))
	if o > l.pos {
		l.line += bytes.Count(l.data[l.pos:o], []byte{'\n'})
		l.pos = o
	}
	return l.line
}

func newLineCounter(data []byte) *lineCounter { return &lineCounter{data: data, line: 1} }

// lineCol returns the 1-based line and column of byte offset off.
func lineCol(data []byte, off int64) (int, int) {
	o := min(int(off), len(data))
	line := 1 + bytes.Count(data[:o], []byte{'\n'})
	col := o - bytes.LastIndexByte(data[:o], '\n')
	return line, col
}

// jsonErr turns a decoding error into "FILE:LINE:COL: what".
func jsonErr(path string, data []byte, dec *json.Decoder, err error, what string) error {
	var se *json.SyntaxError
	off := dec.InputOffset()
	if errors.As(err, &se) && se.Offset > 0 {
		off = se.Offset - 1 // the offending byte
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off = te.Offset
	}
	line, col := lineCol(data, off)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s:%d:%d: %s: unexpected end of file", path, line, col, what)
	}
	return fmt.Errorf("%s:%d:%d: %s: %v", path, line, col, what, err)
}

// jsonEnd reports "FILE:LINE:COL: unexpected data after the top-level
// array" unless only whitespace follows the array dec has just closed. Not
// dec.More(): it reports false for a stray ']' or '}', which would let
// "[...]]" through.
func jsonEnd(path string, data []byte, dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		line, col := lineCol(data, dec.InputOffset())
		return fmt.Errorf("%s:%d:%d: unexpected data after the top-level array", path, line, col)
	}
	return nil
}

// readShareGPT parses a ShareGPT JSON file (a top-level array of objects,
// each with a "conversations" list of {"from", "value"} turns) and keeps the
// entries with at least minTurns turns: 2 for single-turn requests, as
// vLLM's load_data does; 1 for --multi-turn, whose last question may be
// sent without an answer (docs/metrics.md#multi-turn).
func readShareGPT(ctx context.Context, path string, minTurns int) ([]shareGPTEntry, int, error) {
	if path == BuiltinShareGPT {
		return parseShareGPT(path, builtinShareGPTData, minTurns)
	}
	data, err := readDataFile(ctx, path, "sharegpt")
	if err != nil {
		return nil, 0, err
	}
	return parseShareGPT(path, data, minTurns)
}

func parseShareGPT(path string, data []byte, minTurns int) ([]shareGPTEntry, int, error) {
	if kept, total, ok := scanShareGPT(data, minTurns); ok {
		return kept, total, nil
	}
	return parseShareGPTSlow(path, data, minTurns)
}

// parseShareGPTSlow parses with encoding/json, for exact error positions
// (and any file the fast scanner declines).
func parseShareGPTSlow(path string, data []byte, minTurns int) ([]shareGPTEntry, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	what := "not a ShareGPT JSON file (expected a JSON array of {\"conversations\": [...]} objects)"
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, jsonErr(path, data, dec, err, what)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		first := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		line, col := lineCol(data, int64(first))
		return nil, 0, fmt.Errorf("%s:%d:%d: %s", path, line, col, what)
	}
	lc := newLineCounter(data)
	var kept []shareGPTEntry
	total := 0
	for dec.More() {
		start := dec.InputOffset()
		// A map, not a struct: keys match exactly, as in Python (a struct
		// field would also take "Conversations").
		var entry map[string]json.RawMessage
		if err := dec.Decode(&entry); err != nil {
			return nil, 0, jsonErr(path, data, dec, err, fmt.Sprintf("entry %d", total))
		}
		// Decode's start offset points at the separator before the value;
		// skip whitespace and the comma so the line is the entry's own.
		for int(start) < len(data) && (data[start] == ',' || data[start] == ' ' || data[start] == '\n' || data[start] == '\r' || data[start] == '\t') {
			start++
		}
		line := lc.at(start)
		idx := total
		total++
		c := bytes.TrimSpace(entry["conversations"])
		if len(c) == 0 || c[0] != '[' {
			// No "conversations" list (or null): vLLM's filter drops it.
			continue
		}
		// A fresh slice each time: decoding into a reused []RawMessage
		// would overwrite the turns kept from earlier entries.
		var turns []json.RawMessage
		if err := json.Unmarshal(c, &turns); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: entry %d: conversations: %v", path, line, idx, err)
		}
		if len(turns) < max(1, minTurns) {
			continue
		}
		e := shareGPTEntry{conv: json.RawMessage(c), index: idx, line: line}
		copy(e.turns[:], turns)
		kept = append(kept, e)
	}
	if _, err := dec.Token(); err != nil {
		return nil, 0, jsonErr(path, data, dec, err, what)
	}
	if err := jsonEnd(path, data, dec); err != nil {
		return nil, 0, err
	}
	return kept, total, nil
}

// turnValue extracts a turn's "value" string.
func turnValue(path string, e shareGPTEntry, k int) (string, error) {
	var t struct {
		Value *string `json:"value"`
	}
	if err := json.Unmarshal(e.turns[k], &t); err != nil || t.Value == nil {
		return "", fmt.Errorf("%s:%d: entry %d: conversations[%d] has no string \"value\"", path, e.line, e.index, k)
	}
	return *t.Value, nil
}

// estimateTokens is the token count used when no tokenizer is available:
// one token per four bytes of UTF-8, at least one. It is labelled
// approximate wherever it is used.
func estimateTokens(s string) int { return max(1, (len(s)+3)/4) }

// loadShareGPT is vLLM's ShareGPTDataset: filter, shuffle with Python's
// random seeded by --seed, walk in order keeping valid sequences until
// NumPrompts, then oversample.
func loadShareGPT(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	entries, _, err := readShareGPT(ctx, cfg.Path, 2)
	if err != nil {
		return nil, nil, err
	}
	return sampleShareGPT(ctx, cfg, tok, entries)
}

func sampleShareGPT(ctx context.Context, cfg Config, tok Tokenizer, entries []shareGPTEntry) ([]Request, []string, error) {
	var warnings []string
	if tok == nil {
		warnings = append(warnings, "sharegpt without a tokenizer: token counts are estimated as one token per 4 bytes, so the length filter and prompt lengths are approximate")
	}
	if !cfg.DisableShuffle {
		r := pyrand.New(cfg.Seed)
		r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	}
	count := func(s string) int {
		if tok == nil {
			return estimateTokens(s)
		}
		return tok.CountTokens(s) + tok.NumSpecialTokensToAdd()
	}
	fixed := cfg.SharegptOutputLen > 0
	var reqs []Request
	huge := 0
	for _, e := range entries {
		if len(reqs) >= cfg.NumPrompts {
			break
		}
		if ctx.Err() != nil {
			return nil, warnings, ctx.Err()
		}
		prompt, err := turnValue(cfg.Path, e, 0)
		if err != nil {
			return nil, warnings, err
		}
		completion, err := turnValue(cfg.Path, e, 1)
		if err != nil {
			return nil, warnings, err
		}
		if len(prompt) > MaxEntryBytes || len(completion) > MaxEntryBytes {
			huge++ // far past the length filter; not worth tokenizing
			continue
		}
		promptLen := count(prompt)
		outLen := cfg.SharegptOutputLen
		if !fixed {
			outLen = count(completion)
		}
		if !isValidSequence(promptLen, outLen, fixed) {
			continue
		}
		reqs = append(reqs, Request{Prompt: prompt, PromptLen: promptLen, OutputLen: outLen, PrefixID: -1})
	}
	if huge > 0 {
		warnings = append(warnings, fmt.Sprintf("sharegpt: %d conversation(s) skipped: a turn longer than %d MiB", huge, MaxEntryBytes>>20))
	}
	reqs, err := oversample(reqs, cfg, fmt.Sprintf("%s: %d conversations with at least two turns", cfg.Path, len(entries)))
	return reqs, warnings, err
}

// oversample is vLLM's maybe_oversample_requests: with fewer requests than
// NumPrompts, re-seed Python's random with --seed and append copies of
// random.choice(requests). With --no-oversample we fail instead (vLLM would
// silently run fewer requests).
func oversample(reqs []Request, cfg Config, source string) ([]Request, error) {
	n := cfg.NumPrompts
	if len(reqs) >= n {
		return reqs, nil
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%s: no usable rows (none passed the filters)", source)
	}
	if cfg.NoOversample {
		return nil, fmt.Errorf("%s: only %d usable rows, fewer than --num-prompts %d, and --no-oversample is set (lower --num-prompts or allow oversampling)", source, len(reqs), n)
	}
	r := pyrand.New(cfg.Seed)
	base := len(reqs)
	for range n - base {
		reqs = append(reqs, reqs[r.Choice(base)])
	}
	return reqs, nil
}
