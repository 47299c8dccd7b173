package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/pyrand"
)

// shareGPTMessage is one ShareGPT turn reduced to what --multi-turn sends:
// whose side it is on and its text.
type shareGPTMessage struct {
	user bool
	text string
}

// loadShareGPTConversations reads a ShareGPT file for --multi-turn
// (docs/metrics.md#multi-turn): each entry's "conversations" list becomes
// one Conversation whose turns are its user messages, each asking for as
// many tokens as the dataset's answer to it holds (vLLM's ShareGPT
// completion length) unless --sharegpt-output-len fixes it. As in the
// single-turn loader (vLLM's ShareGPTDataset), entries are shuffled with
// Python's random seeded by --seed unless --disable-shuffle, then walked
// in order keeping usable conversations until --num-prompts; entries that
// yield no turn are skipped, counted and reported in one warning. Fewer
// conversations than --num-prompts are sent as they are, with a warning,
// like custom conversations: duplicating whole conversations would turn
// their histories into prefix-cache hits.
func loadShareGPTConversations(ctx context.Context, cfg Config, tok Tokenizer) ([]Conversation, []string, error) {
	cfg = cfg.withDefaults() // --output-len overrides --sharegpt-output-len
	// minTurns 1: a lone question is usable with --sharegpt-output-len.
	entries, _, err := readShareGPT(ctx, cfg.Path, 1)
	if err != nil {
		return nil, nil, err
	}
	if !cfg.DisableShuffle {
		pyrand.New(cfg.Seed).Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	}
	var (
		convs         []Conversation
		warns         []string
		skipped, huge int
	)
	for _, e := range entries {
		if len(convs) >= cfg.NumPrompts {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		msgs, err := shareGPTMessages(cfg.Path, e)
		if err != nil {
			return nil, nil, err
		}
		if tooLong(msgs) {
			huge++ // far past any context; not worth tokenizing
			continue
		}
		c := shareGPTConversation(msgs, cfg.SharegptOutputLen, tok)
		if len(c.Turns) == 0 {
			skipped++
			continue
		}
		c.Line = e.line
		convs = append(convs, c)
	}
	if skipped > 0 {
		why := "no human turn with an answer (an unanswered one is sent only with --sharegpt-output-len)"
		if cfg.SharegptOutputLen > 0 {
			why = "no non-empty human turn"
		}
		warns = append(warns, fmt.Sprintf("sharegpt --multi-turn: %d conversation(s) skipped: %s; see docs/metrics.md#multi-turn", skipped, why))
	}
	if huge > 0 {
		warns = append(warns, fmt.Sprintf("sharegpt --multi-turn: %d conversation(s) skipped: a turn longer than %d MiB", huge, MaxEntryBytes>>20))
	}
	if len(convs) == 0 {
		return nil, warns, fmt.Errorf("%s: no usable conversations among %d entries with a \"conversations\" list (docs/metrics.md#multi-turn)", cfg.Path, len(entries))
	}
	if len(convs) < cfg.NumPrompts {
		warns = append(warns, fmt.Sprintf("%s holds %d usable conversations, fewer than --num-prompts %d: sending those", cfg.Path, len(convs), cfg.NumPrompts))
	}
	if tok == nil {
		warns = append(warns, "sharegpt --multi-turn without a tokenizer: prompt and answer lengths (max_tokens) are estimated as one token per 4 bytes (approximate)")
	}
	return convs, warns, nil
}

// shareGPTMessages reads entry e's turn list into alternating user and
// answer messages, starting with a user message:
//   - "system" turns are dropped: the conversation is replayed as the
//     user/assistant history bench builds, with no system message
//     (custom conversations carry none either);
//   - turns whose value is empty or only whitespace are dropped, as if
//     absent (ShareGPT has empty human turns where the user pressed
//     "continue": the answers around them then read as one);
//   - "human" and "user" turns are the user's; every other role ("gpt",
//     "assistant", and the dumps' few "chatgpt" or "bing") is an answer;
//   - consecutive turns of one side merge into one message, joined by a
//     blank line (two questions in a row are one message to answer);
//   - answers before the first user message are dropped.
//
// A turn without a string "from" and "value" is an error naming the file
// and line, as the single-turn loader's turnValue does.
func shareGPTMessages(path string, e shareGPTEntry) ([]shareGPTMessage, error) {
	var turns []struct {
		From  *string `json:"from"`
		Value *string `json:"value"`
	}
	if err := json.Unmarshal(e.conv, &turns); err != nil {
		return nil, fmt.Errorf("%s:%d: entry %d: conversations: want a list of {\"from\", \"value\"} objects", path, e.line, e.index)
	}
	var msgs []shareGPTMessage
	for k, t := range turns {
		if t.From == nil || t.Value == nil {
			return nil, fmt.Errorf("%s:%d: entry %d: conversations[%d] has no string \"from\" and \"value\"", path, e.line, e.index, k)
		}
		if *t.From == "system" || strings.TrimSpace(*t.Value) == "" {
			continue
		}
		user := *t.From == "human" || *t.From == "user"
		switch {
		case len(msgs) == 0 && !user:
			continue // a leading answer answers nothing we send
		case len(msgs) > 0 && msgs[len(msgs)-1].user == user:
			msgs[len(msgs)-1].text += "\n\n" + *t.Value
		default:
			msgs = append(msgs, shareGPTMessage{user: user, text: *t.Value})
		}
	}
	return msgs, nil
}

// tooLong reports whether a message is longer than MaxEntryBytes (the
// single-turn loader skips such entries too).
func tooLong(msgs []shareGPTMessage) bool {
	for _, m := range msgs {
		if len(m.text) > MaxEntryBytes {
			return true
		}
	}
	return false
}

// shareGPTConversation turns alternating messages (user first) into
// turns. A user message's OutputLen is its answer's token count counted
// as the single-turn loader counts a completion (with the tokenizer's
// special tokens, vLLM's len(tokenizer(completion).input_ids)), or fixed
// when fixedOut > 0. A user message with no answer (the last one) is
// sent only when fixedOut says how long an answer to ask for; otherwise
// it is dropped. No length filter applies: vLLM's is_valid_sequence
// bounds one prompt, and a conversation's history outgrows it by design.
func shareGPTConversation(msgs []shareGPTMessage, fixedOut int, tok Tokenizer) Conversation {
	var c Conversation
	for i := 0; i < len(msgs); i += 2 {
		out := fixedOut
		if out <= 0 {
			if i+1 >= len(msgs) {
				break // the last question, unanswered: no length to ask for
			}
			out = countWithSpecial(tok, msgs[i+1].text)
		}
		p := msgs[i].text
		plen := estimateTokens(p)
		if tok != nil {
			plen = tok.CountTokens(p) // the prompt alone, as parseConversation counts
		}
		// max_tokens 0 is refused by servers; a non-empty answer counts >= 1.
		c.Turns = append(c.Turns, Turn{Prompt: p, PromptLen: plen, OutputLen: max(1, out)})
	}
	return c
}

// countWithSpecial is the single-turn ShareGPT token count (sampleShareGPT).
func countWithSpecial(tok Tokenizer, s string) int {
	if tok == nil {
		return estimateTokens(s)
	}
	return tok.CountTokens(s) + tok.NumSpecialTokensToAdd()
}
