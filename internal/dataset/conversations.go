package dataset

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// Turn is one user turn of a multi-turn conversation: what the user says
// and how long an answer to ask for. The history before it (earlier
// turns and the model's actual answers) is added when it is sent.
type Turn struct {
	// Prompt is the user message.
	Prompt string
	// PromptLen is the client-side token count of Prompt alone.
	PromptLen int
	// OutputLen is the requested output length (max_tokens).
	OutputLen int
}

// Conversation is a multi-turn chat: its user turns in order.
type Conversation struct {
	Turns []Turn
	// Line is the JSONL line it came from, or the line where its ShareGPT
	// entry starts (for messages).
	Line int
}

// LoadConversations reads the conversations of a --multi-turn run
// (docs/metrics.md#multi-turn): a ShareGPT file's "conversations" lists
// (loadShareGPTConversations), or a custom JSONL file whose rows carry a
// "turns" list — each item a string (the user message) or an object
// {"prompt", "output_tokens"}. NumPrompts counts conversations; rows are
// shuffled with --seed unless --disable-shuffle, as the custom dataset's
// are. A custom turn without output_tokens asks for --custom-output-len
// tokens (-1: it must say).
func LoadConversations(ctx context.Context, cfg Config, tok Tokenizer) ([]Conversation, []string, error) {
	if cfg.Name == ShareGPT {
		return loadShareGPTConversations(ctx, cfg, tok)
	}
	if cfg.Name != Custom {
		return nil, nil, fmt.Errorf("--multi-turn reads --dataset-name sharegpt (its \"conversations\" lists) or custom (a \"turns\" list per line), not %s", cfg.Name)
	}
	f, err := openDataFile(ctx, cfg.Path, "custom")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var convs []Conversation
	err = readJSONL(cfg.Path, f, func(line int, obj map[string]json.RawMessage) error {
		c, err := parseConversation(cfg, tok, obj["turns"])
		if err != nil {
			return fmt.Errorf("%s:%d: %v", cfg.Path, line, err)
		}
		c.Line = line
		convs = append(convs, c)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(convs) == 0 {
		return nil, nil, fmt.Errorf("%s: no conversations (empty JSONL file)", cfg.Path)
	}
	if !cfg.DisableShuffle {
		pyrand.New(cfg.Seed).Shuffle(len(convs), func(i, j int) { convs[i], convs[j] = convs[j], convs[i] })
	}
	var warns []string
	if n := cfg.NumPrompts; n > 0 && n < len(convs) {
		convs = convs[:n]
	} else if n > len(convs) {
		warns = append(warns, fmt.Sprintf("%s holds %d conversations, fewer than --num-prompts %d: sending those", cfg.Path, len(convs), n))
	}
	if tok == nil {
		warns = append(warns, "multi-turn without a tokenizer: prompt lengths are estimated as one token per 4 bytes (approximate)")
	}
	return convs, warns, nil
}

// parseConversation reads one row's "turns" list.
func parseConversation(cfg Config, tok Tokenizer, raw json.RawMessage) (Conversation, error) {
	if raw == nil {
		return Conversation{}, fmt.Errorf(`no "turns" list in this row (--multi-turn reads {"turns": ["first message", {"prompt": "second", "output_tokens": 64}]})`)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return Conversation{}, fmt.Errorf(`"turns" must be a non-empty list`)
	}
	var c Conversation
	for k, item := range items {
		t, err := parseTurn(cfg, item)
		if err != nil {
			return Conversation{}, fmt.Errorf("turns[%d]: %v", k, err)
		}
		t.PromptLen = estimateTokens(t.Prompt)
		if tok != nil {
			t.PromptLen = tok.CountTokens(t.Prompt)
		}
		c.Turns = append(c.Turns, t)
	}
	return c, nil
}

func parseTurn(cfg Config, item json.RawMessage) (Turn, error) {
	t := Turn{OutputLen: cfg.CustomOutputLen}
	if json.Unmarshal(item, &t.Prompt) == nil {
		if t.OutputLen < 0 {
			return t, fmt.Errorf("no output_tokens, and --custom-output-len is -1 (take lengths from the file)")
		}
		return t, nil
	}
	var obj struct {
		Prompt       *string         `json:"prompt"`
		OutputTokens json.RawMessage `json:"output_tokens"`
	}
	if err := json.Unmarshal(item, &obj); err != nil || obj.Prompt == nil {
		return t, fmt.Errorf(`want a string or {"prompt": "...", "output_tokens": N}`)
	}
	t.Prompt = *obj.Prompt
	if obj.OutputTokens != nil {
		v, ok := parseOutputTokens(obj.OutputTokens)
		if !ok || v <= 0 {
			return t, fmt.Errorf("invalid output_tokens %s: must be a positive integer", obj.OutputTokens)
		}
		t.OutputLen = v
	} else if t.OutputLen < 0 {
		return t, fmt.Errorf("no output_tokens, and --custom-output-len is -1 (take lengths from the file)")
	}
	return t, nil
}
