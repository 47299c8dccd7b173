package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/llmbench/llmbench/internal/pyrand"
	"github.com/parquet-go/parquet-go"
)

// hfRow is one row of an hf dataset with where it came from.
type hfRow struct {
	fields map[string]any
	where  string // "FILE:LINE" or "FILE row N"
	// turns, when set, are the raw first two "conversations" turns of a
	// ShareGPT-layout JSON file read by the fast scanner; fields is nil and
	// the turns are decoded only for rows the sampler walks.
	turns *[2]json.RawMessage
}

// openMaybeGzip opens path, transparently gunzipping *.gz files.
// Only regular files are read (see openDataFile); a gzipped file may expand
// to at most MaxDecompressedBytes.
func openMaybeGzip(ctx context.Context, path string) (io.ReadCloser, error) {
	f, err := openDataFile(ctx, path, "hf")
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not gzip: %v", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{&capped{r: zr, left: MaxDecompressedBytes, path: path}, f}, nil
}

// capped fails a read past its byte allowance (a gzip bomb).
type capped struct {
	r    io.Reader
	left int64
	path string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%s: expands to more than %d GiB", c.path, MaxDecompressedBytes>>30)
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	return n, err
}

// readRows reads a JSONL, JSON-array or Parquet file into rows. The format
// is taken from the content (Parquet magic, '[' for a JSON array, else JSON
// lines), so a mislabelled file still reads or fails with a clear message.
func readRows(ctx context.Context, path string) ([]hfRow, error) {
	rc, err := openMaybeGzip(ctx, path)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("hf dataset: %s: %w", path, err)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	switch {
	case bytes.HasPrefix(data, []byte("PAR1")):
		return readParquetRows(path, data)
	case len(trimmed) > 0 && trimmed[0] == '[':
		if kept, _, ok := scanShareGPT(data, 2); ok && len(kept) > 0 {
			// A ShareGPT-layout file (often hundreds of MB): keep the raw
			// first two turns of entries with at least two, as the sharegpt
			// dataset does, instead of decoding every row.
			rows := make([]hfRow, len(kept))
			for i := range kept {
				rows[i] = hfRow{where: fmt.Sprintf("%s:%d", path, kept[i].line), turns: &kept[i].turns}
			}
			return rows, nil
		}
		return readJSONArrayRows(path, data)
	case len(trimmed) > 0 && trimmed[0] == '{':
		var rows []hfRow
		err := readJSONL(path, bytes.NewReader(data), func(line int, obj map[string]json.RawMessage) error {
			fields := make(map[string]any, len(obj))
			for k, v := range obj {
				var x any
				if err := json.Unmarshal(v, &x); err != nil {
					return fmt.Errorf("%s:%d: %v", path, line, err)
				}
				fields[k] = x
			}
			rows = append(rows, hfRow{fields: fields, where: fmt.Sprintf("%s:%d", path, line)})
			return nil
		})
		return rows, err
	case len(trimmed) == 0:
		return nil, fmt.Errorf("%s: empty file", path)
	default:
		return nil, fmt.Errorf("%s: not JSON, JSON lines or Parquet (starts with %q)", path, string(trimmed[:min(len(trimmed), 16)]))
	}
}

func readJSONArrayRows(path string, data []byte) ([]hfRow, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	what := "expected a JSON array of objects"
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(path, data, dec, err, what)
	}
	lc := newLineCounter(data)
	var rows []hfRow
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return nil, jsonErr(path, data, dec, err, fmt.Sprintf("element %d", i))
		}
		for int(start) < len(data) && strings.ContainsRune(", \n\r\t", rune(data[start])) {
			start++
		}
		if obj == nil {
			line, _ := lineCol(data, start)
			return nil, fmt.Errorf("%s:%d: element %d is not a JSON object", path, line, i)
		}
		rows = append(rows, hfRow{fields: obj, where: fmt.Sprintf("%s:%d", path, lc.at(start))})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonErr(path, data, dec, err, what)
	}
	if err := jsonEnd(path, data, dec); err != nil {
		return nil, err
	}
	return rows, nil
}

func readParquetRows(path string, data []byte) (rows []hfRow, err error) {
	defer func() {
		// parquet-go panics on some malformed files; report, never crash.
		if r := recover(); r != nil {
			rows, err = nil, fmt.Errorf("%s: malformed Parquet file: %v", path, r)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
	}
	r := parquet.NewGenericReader[any](f)
	defer r.Close()
	buf := make([]any, 256)
	for {
		n, rerr := r.Read(buf)
		for _, v := range buf[:n] {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s row %d: not a record (%T)", path, len(rows), v)
			}
			rows = append(rows, hfRow{fields: m, where: fmt.Sprintf("%s row %d", path, len(rows))})
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%s row %d: %v", path, len(rows), rerr)
		}
		if n == 0 {
			break
		}
	}
	return rows, nil
}

// Column layouts the hf reader detects, in order of preference.
var (
	conversationColumns = []string{"conversations", "conversation", "messages", "dialog", "turns"}
	promptColumns       = []string{"prompt", "instruction", "question", "input", "query", "text", "problem"}
	completionColumns   = []string{"output", "response", "completion", "answer", "chosen", "target", "solution"}
)

// turnText is the text of one conversation turn: ShareGPT's "value",
// OpenAI's "content" (string, or the text parts of a list), or a bare string.
func turnText(t any) (string, bool) {
	switch x := t.(type) {
	case string:
		return x, true
	case map[string]any:
		for _, k := range []string{"value", "content", "text"} {
			switch c := x[k].(type) {
			case string:
				return c, true
			case []any:
				var parts []string
				for _, p := range c {
					if pm, ok := p.(map[string]any); ok {
						if s, ok := pm["text"].(string); ok {
							parts = append(parts, s)
						}
					}
				}
				return strings.Join(parts, "\n"), true
			}
		}
	}
	return "", false
}

// hfLayout says how to take a prompt (and maybe a completion) from a row.
type hfLayout struct {
	column     string
	completion string // "" when the layout has no completion column
}

func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// detectLayout picks the prompt column from the first row (or checks the
// one the user named).
func detectLayout(first hfRow, column string) (hfLayout, error) {
	if first.turns != nil {
		if column != "" && column != "conversations" {
			return hfLayout{}, fmt.Errorf("%s: --hf-prompt-column %q: this ShareGPT-layout file is read by its \"conversations\" column", first.where, column)
		}
		return hfLayout{column: "conversations"}, nil
	}
	f := first.fields
	if column != "" {
		if _, ok := f[column]; !ok {
			return hfLayout{}, fmt.Errorf("%s: no column %q (columns: %s)", first.where, column, strings.Join(keysOf(f), ", "))
		}
		l := hfLayout{column: column}
		if _, isString := f[column].(string); isString {
			l.completion = firstPresent(f, completionColumns, column)
		}
		return l, nil
	}
	for _, c := range conversationColumns {
		if list, ok := f[c].([]any); ok && len(list) > 0 {
			if _, ok := turnText(list[0]); ok {
				return hfLayout{column: c}, nil
			}
		}
	}
	for _, c := range promptColumns {
		if _, ok := f[c].(string); ok {
			return hfLayout{column: c, completion: firstPresent(f, completionColumns, c)}, nil
		}
	}
	return hfLayout{}, fmt.Errorf("%s: no usable prompt column (looked for %s; columns: %s); name one with --hf-prompt-column",
		first.where, strings.Join(append(slices.Clone(conversationColumns), promptColumns...), ", "), strings.Join(keysOf(f), ", "))
}

func firstPresent(f map[string]any, cols []string, not string) string {
	for _, c := range cols {
		if _, ok := f[c].(string); ok && c != not {
			return c
		}
	}
	return ""
}

// extract returns the row's prompt and completion (ok2 false when none).
func (l hfLayout) extract(r hfRow) (prompt, completion string, hasCompletion bool, err error) {
	if r.turns != nil {
		var t [2]any
		for k := range t {
			if json.Unmarshal(r.turns[k], &t[k]) != nil {
				return "", "", false, fmt.Errorf("%s: conversations[%d] is not valid JSON", r.where, k)
			}
		}
		p, ok := turnText(t[0])
		if !ok {
			return "", "", false, fmt.Errorf("%s: conversations[0] has no text (\"value\" or \"content\")", r.where)
		}
		completion, hasCompletion = turnText(t[1])
		return p, completion, hasCompletion, nil
	}
	v, present := r.fields[l.column]
	switch x := v.(type) {
	case string:
		prompt = x
		if l.column == "instruction" {
			// Alpaca layout: the optional "input" follows the instruction.
			if in, ok := r.fields["input"].(string); ok && strings.TrimSpace(in) != "" {
				prompt = x + "\n\n" + in
			}
		}
		if l.completion != "" {
			completion, hasCompletion = r.fields[l.completion].(string)
		}
		return prompt, completion, hasCompletion, nil
	case []any:
		if len(x) == 0 {
			return "", "", false, nil
		}
		p, ok := turnText(x[0])
		if !ok {
			return "", "", false, fmt.Errorf("%s: column %q: turn 0 has no text (\"value\" or \"content\")", r.where, l.column)
		}
		if len(x) > 1 {
			completion, hasCompletion = turnText(x[1])
		}
		return p, completion, hasCompletion, nil
	case nil:
		if !present {
			return "", "", false, fmt.Errorf("%s: no column %q in this row", r.where, l.column)
		}
		return "", "", false, nil
	default:
		return "", "", false, fmt.Errorf("%s: column %q holds %T, not text or a conversation", r.where, l.column, v)
	}
}

// loadHF reads an hf dataset: --dataset-path is a local JSONL/JSON/Parquet
// file or folder, or a dataset id ORG/NAME found in the HF cache or
// downloaded into it. Rows are shuffled with Python's random seeded by
// --seed (vLLM uses the datasets library's shuffle, so the order differs),
// the prompt column is taken from --hf-prompt-column or detected, and:
//   - with --hf-output-len (or --output-len) every request asks for that
//     many tokens and only the prompt-length filter applies;
//   - with a completion (a conversation's second turn, or an output/
//     response/answer column) the output length is its token count and
//     vLLM's ShareGPT filter applies (4 <= prompt <= 1024, output >= 4,
//     sum <= 2048);
//   - otherwise the output length is 256 (a warning says so).
func loadHF(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	files, warnings, err := resolveHFFiles(ctx, cfg)
	if err != nil {
		return nil, warnings, err
	}
	var rows []hfRow
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, warnings, ctx.Err()
		}
		rs, err := readRows(ctx, f)
		if err != nil {
			return nil, warnings, err
		}
		rows = append(rows, rs...)
	}
	if len(rows) == 0 {
		return nil, warnings, fmt.Errorf("hf dataset %s: no rows in %s", cfg.Path, summarize(files))
	}
	layout, err := detectLayout(rows[0], cfg.HFPromptColumn)
	if err != nil {
		return nil, warnings, err
	}
	if !cfg.DisableShuffle {
		r := pyrand.New(cfg.Seed)
		r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	if tok == nil {
		warnings = append(warnings, "hf dataset without a tokenizer: token counts are estimated as one token per 4 bytes (approximate)")
	}
	count := func(s string) int {
		if tok == nil {
			return estimateTokens(s)
		}
		return tok.CountTokens(s) + tok.NumSpecialTokensToAdd()
	}
	fixed := cfg.HFOutputLen > 0
	defaulted, empty := 0, 0
	var reqs []Request
	for _, row := range rows {
		if len(reqs) >= cfg.NumPrompts {
			break
		}
		if ctx.Err() != nil {
			return nil, warnings, ctx.Err()
		}
		prompt, completion, hasCompletion, err := layout.extract(row)
		if err != nil {
			return nil, warnings, err
		}
		if len(prompt) > MaxEntryBytes || len(completion) > MaxEntryBytes {
			return nil, warnings, fmt.Errorf("%s: an entry longer than %d MiB, the limit for one dataset entry", row.where, MaxEntryBytes>>20)
		}
		if strings.TrimSpace(prompt) == "" {
			empty++
			continue
		}
		promptLen := count(prompt)
		var outLen int
		switch {
		case fixed:
			outLen = cfg.HFOutputLen
			if !isValidSequence(promptLen, outLen, true) {
				continue
			}
		case hasCompletion:
			outLen = count(completion)
			if !isValidSequence(promptLen, outLen, false) {
				continue
			}
		default:
			outLen = defaultCustomOL
			defaulted++
		}
		var msgs []map[string]any
		if !cfg.SkipChatTemplate && layout.column == "messages" {
			// A chat dataset: chat endpoints get the first user turn as a
			// message (the server applies its template).
			msgs = []map[string]any{{"role": "user", "content": prompt}}
		}
		reqs = append(reqs, Request{Prompt: prompt, Messages: msgs, PromptLen: promptLen, OutputLen: outLen, PrefixID: -1})
	}
	if defaulted > 0 {
		warnings = append(warnings, fmt.Sprintf("hf dataset %s: column %q has no completion to size outputs; %d requests ask for %d output tokens (set --hf-output-len)", cfg.Path, layout.column, defaulted, defaultCustomOL))
	}
	if empty > 0 {
		warnings = append(warnings, fmt.Sprintf("hf dataset %s: skipped %d rows with an empty prompt", cfg.Path, empty))
	}
	reqs, err = oversample(reqs, cfg, fmt.Sprintf("hf dataset %s (%d rows, prompt column %q)", cfg.Path, len(rows), layout.column))
	return reqs, warnings, err
}
