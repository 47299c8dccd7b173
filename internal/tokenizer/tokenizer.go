// Package tokenizer encodes and decodes text with Hugging Face tokenizers
// (the tokenizer.json "fast tokenizer" format) in pure Go, giving the same
// ids as the Rust tokenizers library for the BPE pipelines of current LLMs
// (GPT-2, Llama-3, Qwen3, Mistral, Gemma, GPT-4o, ...), and the OpenAI
// encodings cl100k_base and o200k_base by name.
//
// It follows transformers' semantics where vLLM's benchmark depends on them:
// VocabSize excludes added tokens, SpecialIDs come from the named special
// tokens of tokenizer_config.json, and Decode keeps special tokens.
//
// It refuses, with an error naming the component, what it does not
// implement (WordPiece and Unigram models, BERT normalizers, ...): a
// tokenizer that silently gives other ids would make every token count wrong.
// It tracks no offsets and ignores truncation and padding.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tokenizer encodes text to token ids and back. It is safe for concurrent
// use.
type Tokenizer struct {
	id         string
	normalizer normalizer
	pre        preTokenizer
	model      *bpe
	added      *addedVocab
	post       postProcessor
	decoder    decoder
	specialIDs []int
}

// Parse builds a Tokenizer from the bytes of tokenizer.json and, optionally
// (nil), of tokenizer_config.json. id is what ID reports.
func Parse(id string, tokenizerJSON, configJSON []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(tokenizerJSON, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t := &Tokenizer{id: id}
	var err error
	if t.model, err = parseModel(f.Model); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.normalizer, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.decoder, err = parseDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("tokenizer.json: added token %q has negative id %d", a.Content, a.ID)
		}
	}
	var norm func(string) string
	if t.normalizer != nil {
		norm = t.normalizer.normalize
	}
	t.added = newAddedVocab(f.AddedTokens, t.model.vocab, norm)
	if t.post, err = parsePostProcessor(f.PostProcessor, t.tokenID); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.specialIDs, err = parseSpecialIDs(configJSON, t.tokenID); err != nil {
		return nil, err
	}
	return t, nil
}

// tokenID looks a token up in the added tokens, then in the model.
func (t *Tokenizer) tokenID(s string) (int, bool) {
	if id, ok := t.added.byContent[s]; ok {
		return id, true
	}
	id, ok := t.model.vocab[s]
	return id, ok
}

// Encode returns the ids of text. With addSpecialTokens the post-processor's
// template adds its special tokens (for example BOS). Invalid UTF-8 is first
// replaced the way Rust's from_utf8_lossy does.
func (t *Tokenizer) Encode(text string, addSpecialTokens bool) []int {
	if !utf8.ValidString(text) {
		text = lossyUTF8([]byte(text))
	}
	ids := make([]int, 0, len(text)/3+4)
	var raw, normed []split
	raw = findSplits(text, t.added.raw, t.added.rawTok, true, raw)
	var pieces []piece
	for _, sp := range raw {
		if sp.id >= 0 {
			ids = append(ids, sp.id)
			continue
		}
		s := sp.s
		if t.normalizer != nil {
			s = t.normalizer.normalize(s)
		}
		normed = findSplits(s, t.added.norm, t.added.normTok, sp.first, normed[:0])
		for _, ns := range normed {
			if ns.id >= 0 {
				ids = append(ids, ns.id)
				continue
			}
			if ns.s == "" {
				continue
			}
			pieces = append(pieces[:0], piece{s: ns.s, first: ns.first})
			if t.pre != nil {
				pieces = t.pre.preTokenize(pieces)
			}
			for _, p := range pieces {
				ids = t.model.tokenize(p.s, ids)
			}
		}
	}
	if addSpecialTokens && t.post != nil {
		ids = t.post.process(ids)
	}
	return ids
}

// CountTokens returns len(Encode(text, false)).
func (t *Tokenizer) CountTokens(text string) int { return len(t.Encode(text, false)) }

// Decode returns the text of ids, special tokens included (transformers'
// decode with skip_special_tokens=False). Ids unknown to the tokenizer are
// skipped.
func (t *Tokenizer) Decode(ids []int) string {
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		if a, ok := t.added.byID[id]; ok {
			tokens = append(tokens, a.Content)
			continue
		}
		if s, ok := t.model.idToToken(id); ok {
			tokens = append(tokens, s)
		}
	}
	if t.decoder == nil {
		return strings.Join(tokens, " ")
	}
	return strings.Join(t.decoder.decodeChain(tokens), "")
}

// VocabSize is the size of the base vocabulary without added tokens
// (transformers' vocab_size): 128000 for Llama-3, 151643 for Qwen3, 262144
// for Gemma-3, 50257 for GPT-2, 32000 for Mistral-7B.
func (t *Tokenizer) VocabSize() int { return len(t.model.vocab) }

// SpecialIDs returns transformers' all_special_ids: the ids of the special
// tokens named in tokenizer_config.json (bos, eos, unk, sep, pad, cls, mask,
// additional and extra special tokens), sorted. The "special" flags of
// tokenizer.json are not used. The caller must not modify the slice.
func (t *Tokenizer) SpecialIDs() []int { return t.specialIDs }

// NumSpecialTokensToAdd is how many ids the post-processor adds to one
// sequence when special tokens are requested.
func (t *Tokenizer) NumSpecialTokensToAdd() int {
	if t.post == nil {
		return 0
	}
	return t.post.added()
}

// ID is the name or path the tokenizer was loaded from.
func (t *Tokenizer) ID() string { return t.id }
