package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// customRow is one parsed line of a custom JSONL file.
type customRow struct {
	prompt       string
	messages     []map[string]any
	outputTokens json.RawMessage // nil when absent
	line         int
}

// maxLineBytes bounds one JSONL line (a long-context prompt can be MBs).
const maxLineBytes = MaxEntryBytes

// readJSONL calls fn for each non-blank line of a JSON-lines stream with its
// 1-based line number.
func readJSONL(path string, r io.Reader, fn func(line int, obj map[string]json.RawMessage) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // UTF-8 BOM
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			if b[0] == '[' && line == 1 {
				return fmt.Errorf("%s:1: expected JSON lines (one JSON object per line), found a JSON array", path)
			}
			return fmt.Errorf("%s:%d: not a JSON object: %v", path, line, err)
		}
		if obj == nil {
			return fmt.Errorf("%s:%d: expected a JSON object, found null", path, line)
		}
		if err := fn(line, obj); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d MiB, the limit for one dataset entry", path, line+1, maxLineBytes>>20)
		}
		return fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return nil
}

// parseMessages decodes a chat "messages" list: objects with a string
// "role" and a "content" (string or list of parts, kept as-is).
func parseMessages(raw json.RawMessage) ([]map[string]any, string, error) {
	var msgs []map[string]any
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, "", fmt.Errorf("\"messages\" must be a list of {\"role\", \"content\"} objects: %v", err)
	}
	if len(msgs) == 0 {
		return nil, "", fmt.Errorf("\"messages\" is empty")
	}
	var text []string
	for i, m := range msgs {
		if _, ok := m["role"].(string); !ok {
			return nil, "", fmt.Errorf("messages[%d] has no string \"role\"", i)
		}
		switch c := m["content"].(type) {
		case string:
			text = append(text, c)
		case []any:
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok {
					if s, ok := pm["text"].(string); ok {
						text = append(text, s)
					}
				}
			}
		default:
			return nil, "", fmt.Errorf("messages[%d] has no \"content\" string or list", i)
		}
	}
	return msgs, strings.Join(text, "\n"), nil
}

// readCustom reads a custom JSONL file: {"prompt": ..., "output_tokens": ...}
// or {"messages": [...]} per line.
func readCustom(ctx context.Context, path string) ([]customRow, error) {
	f, err := openDataFile(ctx, path, "custom")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []customRow
	err = readJSONL(path, f, func(line int, obj map[string]json.RawMessage) error {
		row := customRow{line: line, outputTokens: obj["output_tokens"]}
		if p, ok := obj["prompt"]; ok {
			if err := json.Unmarshal(p, &row.prompt); err != nil {
				return fmt.Errorf("%s:%d: \"prompt\" must be a string", path, line)
			}
		}
		if m, ok := obj["messages"]; ok {
			msgs, text, err := parseMessages(m)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", path, line, err)
			}
			row.messages = msgs
			if _, hasPrompt := obj["prompt"]; !hasPrompt {
				row.prompt = text
			}
		} else if _, ok := obj["prompt"]; !ok {
			return fmt.Errorf("%s:%d: no \"prompt\" string (or \"messages\" list) in this row", path, line)
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows (empty JSONL file)", path)
	}
	return rows, nil
}

// parseOutputTokens reads output_tokens the way vLLM's int(...) does:
// integers, integral floats and numeric strings.
func parseOutputTokens(raw json.RawMessage) (int, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && x >= 0 && x < math.MaxInt32 {
			return int(x), true
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// loadCustom is vLLM's CustomDataset with these differences, all reported
// as warnings when they apply:
//   - No chat template engine. Unless --skip-chat-template is set, each
//     prompt is also given as a one-message chat (Messages), so chat
//     endpoints apply the server's template; completions endpoints get the
//     raw prompt. prompt_len counts the raw prompt (the server's
//     usage.prompt_tokens replaces it in results).
//   - Rows may carry a "messages" list (sent as-is to chat endpoints).
//   - Without a tokenizer vLLM sets prompt and output lengths to 1; we keep
//     the output length from the flag or file and estimate prompt_len.
func loadCustom(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	rows, err := readCustom(ctx, cfg.Path)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if !cfg.DisableShuffle {
		r := pyrand.New(cfg.Seed)
		r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	n := cfg.NumPrompts
	if n < 0 {
		n = len(rows)
	}
	if tok == nil {
		warnings = append(warnings, "custom dataset without a tokenizer: prompt lengths are estimated as one token per 4 bytes (approximate)")
	}
	templated := false
	var reqs []Request
	for _, row := range rows {
		if len(reqs) >= n {
			break
		}
		if ctx.Err() != nil {
			return nil, warnings, ctx.Err()
		}
		outLen := cfg.CustomOutputLen
		if outLen == -1 {
			if row.outputTokens == nil {
				return nil, warnings, fmt.Errorf("%s:%d: no \"output_tokens\" in this row and --custom-output-len is -1 (take lengths from the file)", cfg.Path, row.line)
			}
			v, ok := parseOutputTokens(row.outputTokens)
			if !ok {
				return nil, warnings, fmt.Errorf("%s:%d: invalid \"output_tokens\" %s: must be an integer", cfg.Path, row.line, string(row.outputTokens))
			}
			outLen = v
		}
		msgs := row.messages
		if msgs == nil && !cfg.SkipChatTemplate {
			msgs = []map[string]any{{"role": "user", "content": row.prompt}}
			templated = true
		}
		promptLen := estimateTokens(row.prompt)
		if tok != nil {
			promptLen = tok.CountTokens(row.prompt) + tok.NumSpecialTokensToAdd()
		}
		reqs = append(reqs, Request{Prompt: row.prompt, Messages: msgs, PromptLen: promptLen, OutputLen: outLen, PrefixID: -1})
	}
	if templated {
		warnings = append(warnings, "custom dataset: no client-side chat template engine; prompts go to chat endpoints as a user message (the server applies its template) and to completions endpoints untemplated; prompt_len counts the raw prompt (pass --skip-chat-template to silence this)")
	}
	reqs, err = oversample(reqs, cfg, fmt.Sprintf("%s: %d rows", cfg.Path, len(rows)))
	return reqs, warnings, err
}
