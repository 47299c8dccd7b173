package tokenizer

import "strings"

// Long texts are encoded in chunks of about chunkBytes, cut where the
// result cannot change: before a separator (" ", or "▁" when the
// normalizer replaced the spaces) that has an ASCII letter on each side.
// Without chunks, a 100 MB text holds every pre-token, every regex match
// and the regex engine's rune copy of the whole text at once (~290 bytes
// per token; 6.3 GB for a 100 MB ShareGPT turn).
//
// Why such a cut is exact, per pipeline (chunkSeparator decides which
// pipelines qualify; anything else is encoded whole, as before):
//
//   - Pre-tokenizers whose first step is GPT-2's ByteLevel regex, a Split
//     (Isolated, or Removed with invert) with one of the known LLM regexes (Llama-3/cl100k, Qwen,
//     o200k), Metaspace with split, or Whitespace: at "x y" each of them
//     ends a pre-token after the letter x — the letter run's greedy match
//     stops at the space, none of the patterns looks behind, and every
//     earlier match stops before the run — and starts the next one at the
//     space (ByteLevel's add_prefix_space leaves a piece starting with a
//     space alone). The later steps of a Sequence work piece by piece
//     and never join pieces. BPE then encodes each pre-token on its own.
//   - No pre-tokenizer (Llama-2, Mistral: the normalizer turns spaces into
//     "▁" and the BPE model sees one word): merges only ever produce
//     vocabulary tokens, so if no token holds "▁" after another character,
//     no merge can join the two sides of "x▁y" and both sides merge as
//     they would in the whole text.
//
// The reference tests encode their corpus with tiny chunks and compare
// with Hugging Face's ids (TestChunkedEncodeMatchesReference).
const defaultChunkBytes = 64 << 10

// safeSplitRegexes are split patterns known to end a pre-token at a letter
// run's end and start the next at a space (see above): GPT-2's, Llama-3's
// and cl100k's, Qwen2/3's, o200k's.
var safeSplitRegexes = map[string]bool{
	byteLevelRegex: true,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:                                                                                                                                                                true,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:                                                                                                                                                                     true,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`: true,
}

// chunkSeparator returns the separator before which a text may be cut
// for pre and model, or "" when texts must be encoded whole.
func chunkSeparator(pre preTokenizer, model *bpe) string {
	if pre == nil {
		if model.prefix != "" || model.suffix != "" || model.ignoreMerges {
			return ""
		}
		for tok := range model.vocab {
			if joinsBefore(tok, "▁") {
				return ""
			}
		}
		return "▁"
	}
	first := pre
	for {
		seq, ok := first.(seqPreTokenizer)
		if !ok {
			break
		}
		if len(seq) == 0 {
			return ""
		}
		first = seq[0]
	}
	switch p := first.(type) {
	case byteLevelPreTokenizer:
		if p.split != nil {
			return " "
		}
	case splitPreTokenizer:
		if re, ok := p.pat.(regexPattern); ok && keepsMatches(p) && safeSplitRegexes[re.src] {
			return " "
		}
		if _, ok := p.pat.(wordRunPattern); ok {
			return " "
		}
	case metaspacePreTokenizer:
		if p.split {
			return " "
		}
	}
	return ""
}

// keepsMatches reports a split whose pieces include every match as it
// is: Isolated, or Removed with invert (the matches are kept and the gaps
// between them dropped: how tiktoken-converted files such as cl100k and
// o200k spell the same split; the safe regexes leave no gap anyway).
func keepsMatches(p splitPreTokenizer) bool {
	return (p.behavior == isolated && !p.invert) || (p.behavior == removed && p.invert)
}

// joinsBefore reports whether tok holds sep right after something else
// than sep: a token that could join the two sides of a cut before sep.
func joinsBefore(tok, sep string) bool {
	for i := 0; ; {
		j := strings.Index(tok[i:], sep)
		if j < 0 {
			return false
		}
		if at := i + j; at > 0 && !strings.HasSuffix(tok[:at], sep) {
			return true
		}
		i += j + len(sep)
	}
}

// cutPoint returns where to end the chunk of s that starts at 0: the last
// safe cut at or before n, else the first one after it; 0 when s has
// none.
func cutPoint(s, sep string, n int) int {
	if n >= len(s) {
		return 0
	}
	for end := n + len(sep); end > 0; {
		i := strings.LastIndex(s[:min(end, len(s))], sep)
		if i <= 0 {
			break
		}
		if safeCut(s, sep, i) {
			return i
		}
		end = i + len(sep) - 1
	}
	for from := n; from < len(s); {
		i := strings.Index(s[from:], sep)
		if i < 0 {
			return 0
		}
		if safeCut(s, sep, from+i) {
			return from + i
		}
		from += i + 1
	}
	return 0
}

// safeCut reports an ASCII letter right before s[i:] (which starts with
// sep) and right after the separator.
func safeCut(s, sep string, i int) bool {
	j := i + len(sep)
	return i > 0 && j < len(s) && isASCIILetter(s[i-1]) && isASCIILetter(s[j])
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
