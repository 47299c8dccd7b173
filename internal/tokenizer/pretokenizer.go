package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is one pre-token on its way to the model. first records whether it
// starts at offset 0 of the original input, which Metaspace's "first"
// prepend scheme depends on.
type piece struct {
	s     string
	first bool
}

// preTokenizer splits each piece into smaller ones; empty results are dropped.
type preTokenizer interface {
	preTokenize(ps []piece) []piece
}

type seqPreTokenizer []preTokenizer

func (s seqPreTokenizer) preTokenize(ps []piece) []piece {
	for _, p := range s {
		ps = p.preTokenize(ps)
	}
	return ps
}

// behavior is tokenizers' SplitDelimiterBehavior.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

// span is a byte range of a piece and whether the pattern matched it.
type span struct {
	start, end int
	match      bool
}

// spans turns matches into a cover of s, as tokenizers' Pattern::find_matches.
func spans(s string, ms [][2]int, invert bool) []span {
	if s == "" {
		return []span{{0, 0, invert}}
	}
	out := make([]span, 0, 2*len(ms)+1)
	prev := 0
	for _, m := range ms {
		if m[0] != prev {
			out = append(out, span{prev, m[0], invert})
		}
		out = append(out, span{m[0], m[1], !invert})
		prev = m[1]
	}
	if prev != len(s) {
		out = append(out, span{prev, len(s), invert})
	}
	return out
}

// splitBy cuts p at the spans according to the behavior, as tokenizers'
// NormalizedString::split does.
func splitBy(p piece, sp []span, b behavior, out []piece) []piece {
	type cut struct {
		start, end int
		drop       bool
	}
	var cuts []cut
	switch b {
	case isolated:
		cuts = make([]cut, len(sp))
		for i, x := range sp {
			cuts[i] = cut{x.start, x.end, false}
		}
	case removed:
		cuts = make([]cut, len(sp))
		for i, x := range sp {
			cuts[i] = cut{x.start, x.end, x.match}
		}
	case contiguous:
		prevMatch := false
		for _, x := range sp {
			if x.match == prevMatch && len(cuts) > 0 {
				cuts[len(cuts)-1].end = x.end
			} else {
				cuts = append(cuts, cut{x.start, x.end, false})
			}
			prevMatch = x.match
		}
	case mergedWithPrevious:
		prevMatch := false
		for _, x := range sp {
			if x.match && !prevMatch && len(cuts) > 0 {
				cuts[len(cuts)-1].end = x.end
			} else {
				cuts = append(cuts, cut{x.start, x.end, false})
			}
			prevMatch = x.match
		}
	case mergedWithNext:
		prevMatch := false
		for i := len(sp) - 1; i >= 0; i-- {
			x := sp[i]
			if x.match && !prevMatch && len(cuts) > 0 {
				cuts[len(cuts)-1].start = x.start
			} else {
				cuts = append(cuts, cut{x.start, x.end, false})
			}
			prevMatch = x.match
		}
		for i, j := 0, len(cuts)-1; i < j; i, j = i+1, j-1 {
			cuts[i], cuts[j] = cuts[j], cuts[i]
		}
	}
	for _, c := range cuts {
		if c.drop || c.end <= c.start {
			continue
		}
		out = append(out, piece{s: p.s[c.start:c.end], first: p.first && c.start == 0})
	}
	return out
}

// splitPreTokenizer is the Split pre-tokenizer (and the regex step of
// ByteLevel).
type splitPreTokenizer struct {
	pat      pattern
	behavior behavior
	invert   bool
}

func (s splitPreTokenizer) preTokenize(ps []piece) []piece {
	out := make([]piece, 0, len(ps)*2)
	for _, p := range ps {
		out = splitBy(p, spans(p.s, s.pat.findAll(p.s), s.invert), s.behavior, out)
	}
	return out
}

// funcPattern matches every single rune for which f is true (tokenizers'
// Fn(char) -> bool pattern).
type funcPattern func(rune) bool

func (f funcPattern) findAll(s string) [][2]int {
	var out [][2]int
	for i, r := range s {
		if f(r) {
			out = append(out, [2]int{i, i + utf8.RuneLen(r)})
		}
	}
	return out
}

// byteLevelRegex is GPT-2's split pattern, applied by ByteLevel when
// use_regex is true.
const byteLevelRegex = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevelPreTokenizer optionally adds a leading space and splits with
// GPT-2's regex, then maps every byte to its printable stand-in character.
type byteLevelPreTokenizer struct {
	addPrefixSpace bool
	split          *splitPreTokenizer // nil when use_regex is false
}

func (b byteLevelPreTokenizer) preTokenize(ps []piece) []piece {
	if b.addPrefixSpace {
		for i := range ps {
			if !strings.HasPrefix(ps[i].s, " ") {
				ps[i].s = " " + ps[i].s
			}
		}
	}
	if b.split != nil {
		ps = b.split.preTokenize(ps)
	}
	for i := range ps {
		ps[i].s = bytesToUnicode(ps[i].s)
	}
	return ps
}

// prependScheme is Metaspace's rule for adding the replacement in front.
type prependScheme int

const (
	prependAlways prependScheme = iota
	prependFirst
	prependNever
)

// metaspacePreTokenizer replaces spaces with "▁", adds one in front per the
// prepend scheme, and splits before each "▁" when split is set.
type metaspacePreTokenizer struct {
	replacement rune
	scheme      prependScheme
	split       bool
}

func (m metaspacePreTokenizer) preTokenize(ps []piece) []piece {
	rep := string(m.replacement)
	out := make([]piece, 0, len(ps)*4)
	for _, p := range ps {
		s := strings.ReplaceAll(p.s, " ", rep)
		if !strings.HasPrefix(s, rep) && (m.scheme == prependAlways || m.scheme == prependFirst && p.first) {
			s = rep + s
		}
		p.s = s
		if !m.split {
			if s != "" {
				out = append(out, p)
			}
			continue
		}
		out = splitBy(p, spans(s, literalPattern(rep).findAll(s), false), mergedWithNext, out)
	}
	return out
}

// isRustPunctuation is tokenizers' is_punc: char::is_ascii_punctuation, or
// General_Category=Punctuation per the unicode_categories crate, whose
// tables are Unicode 8.0 (so U+2E43 and later additions are not punctuation).
func isRustPunctuation(r rune) bool {
	if r < utf8.RuneSelf {
		return unicode.IsPunct(r) || unicode.IsSymbol(r)
	}
	return unicode.Is(punctuation8, r)
}

// whitespacePreTokenizer is tokenizers' Whitespace: the matches of
// \w+|[^\w\s]+ in the Rust regex crate (not Oniguruma), whose \w is
// Alphabetic, Mark, Decimal_Number, Connector_Punctuation and Join_Control.
// Runs of word characters and runs of other non-space characters become
// pieces; whitespace is dropped.
func whitespacePreTokenizer() (preTokenizer, error) {
	return splitPreTokenizer{pat: wordRunPattern{}, behavior: removed, invert: true}, nil
}

// wordRunPattern matches maximal runs of Rust-\w characters and maximal runs
// of characters that are neither \w nor whitespace.
type wordRunPattern struct{}

func (wordRunPattern) findAll(s string) [][2]int {
	var out [][2]int
	start, kind := 0, 0 // kind: 0 none, 1 word, 2 other
	for i, r := range s {
		k := 2
		switch {
		case isRustWord(r):
			k = 1
		case isWhiteSpace(r):
			k = 0
		}
		if k != kind {
			if kind != 0 {
				out = append(out, [2]int{start, i})
			}
			start, kind = i, k
		}
	}
	if kind != 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// whitespaceSplitPreTokenizer splits on whitespace, dropping it.
func whitespaceSplitPreTokenizer() preTokenizer {
	return splitPreTokenizer{pat: funcPattern(isWhiteSpace), behavior: removed}
}

// isNumeric is Rust's char::is_numeric (Nd, Nl, No).
func isNumeric(r rune) bool { return in16(r, []*unicode.RangeTable{unicode.N}, "N") }
