package sim

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// Tokenizer turns text into token ids and back. The method set matches
// internal/tokenizer's encoder, so a real Hugging Face tokenizer can be
// plugged into Config.Tokenizer.
type Tokenizer interface {
	// Encode returns the ids of text; addSpecial adds the model's special
	// prefix (BOS), as vLLM does for completions prompts.
	Encode(text string, addSpecial bool) []int
	// Decode returns the text of ids.
	Decode(ids []int) string
}

// WordTokenizer is the simulator's stand-in tokenizer: one token per
// whitespace-separated word (strings.Fields), plus one BOS token (id 1) when
// addSpecial is set. Words of the generation vocabulary get ids 2..; any
// other word gets a stable hashed id in [1000, 32000), which decodes as
// "<tok:ID>". It is deliberately simple so token counts are easy to predict:
// "the quick brown fox" is 4 tokens (5 with BOS).
type WordTokenizer struct{}

// bosID is the WordTokenizer's BOS token id.
const bosID = 1

// vocab is the word list generated text is drawn from. A few words are
// multi-byte UTF-8 so that byte-level splitting of streams (SageMaker parts)
// cuts inside characters.
var vocab = []string{
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as",
	"with", "was", "on", "be", "at", "by", "this", "had", "not", "are",
	"but", "from", "or", "have", "an", "they", "which", "one", "you", "were",
	"model", "token", "stream", "latency", "server", "batch", "cache", "prompt", "output", "request",
	"quick", "brown", "fox", "jumps", "over", "lazy", "dog", "river", "stone", "light",
	"café", "naïve", "über", "façade", "世界", "東京", "🚀", "Ω", "résumé", "日本語",
	"alpha", "beta", "gamma", "delta",
}

var vocabIDs = func() map[string]int {
	m := make(map[string]int, len(vocab))
	for i, w := range vocab {
		m[w] = i + 2
	}
	return m
}()

// Encode implements Tokenizer.
func (WordTokenizer) Encode(text string, addSpecial bool) []int {
	words := strings.Fields(text)
	ids := make([]int, 0, len(words)+1)
	if addSpecial {
		ids = append(ids, bosID)
	}
	for _, w := range words {
		if id, ok := vocabIDs[w]; ok {
			ids = append(ids, id)
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		ids = append(ids, 1000+int(h.Sum32()%31000))
	}
	return ids
}

// Decode implements Tokenizer: vocabulary words joined by spaces, BOS
// dropped, other ids as "<tok:ID>".
func (WordTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id == bosID {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if id >= 2 && id < 2+len(vocab) {
			b.WriteString(vocab[id-2])
		} else {
			b.WriteString("<tok:" + strconv.Itoa(id) + ">")
		}
	}
	return b.String()
}

// countTokens counts text with tok, the way vLLM counts a prompt.
func countTokens(tok Tokenizer, text string, addSpecial bool) int {
	if wt, ok := tok.(WordTokenizer); ok {
		_ = wt // fast path: no id slice needed
		n := len(strings.Fields(text))
		if addSpecial {
			n++
		}
		return n
	}
	return len(tok.Encode(text, addSpecial))
}
