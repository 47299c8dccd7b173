package tokenizer

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before pre-tokenization. Tokens only, no offsets:
// llmbench needs ids and counts, never character alignments.
type normalizer interface {
	normalize(s string) string
}

type seqNormalizer []normalizer

func (n seqNormalizer) normalize(s string) string {
	for _, x := range n {
		s = x.normalize(s)
	}
	return s
}

// prependNormalizer adds a prefix to every non-empty piece (Mistral's "▁").
type prependNormalizer string

func (p prependNormalizer) normalize(s string) string {
	if s == "" {
		return s
	}
	return string(p) + s
}

// replaceNormalizer replaces every match of a pattern with content.
type replaceNormalizer struct {
	pat     pattern
	content string
}

func (r replaceNormalizer) normalize(s string) string { return replaceAll(s, r.pat, r.content) }

func replaceAll(s string, p pattern, content string) string {
	ms := p.findAll(s)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, m := range ms {
		b.WriteString(s[prev:m[0]])
		b.WriteString(content)
		prev = m[1]
	}
	b.WriteString(s[prev:])
	return b.String()
}

// unicodeNormalizer applies one of the four Unicode normalization forms as
// tokenizers does, whose tables are older than Go's: the characters of
// noCanonicalDecomposition (and, for NFKC and NFKD, of
// noCompatDecomposition) are kept as they are, and the text around them is
// normalized in pieces. That is exact because they are starters, which
// block reordering across them, and composition into them is what the
// lists rule out.
type unicodeNormalizer struct{ form norm.Form }

func (u unicodeNormalizer) normalize(s string) string {
	compat := u.form == norm.NFKC || u.form == norm.NFKD
	var b strings.Builder
	start := 0
	for i, r := range s {
		if r < noCanonicalDecomposition[0][0] && r < noCompatDecomposition[0][0] {
			continue
		}
		if inRanges(r, noCanonicalDecomposition) || compat && inRanges(r, noCompatDecomposition) {
			b.WriteString(u.form.String(s[start:i]))
			b.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	if start == 0 {
		return u.form.String(s)
	}
	b.WriteString(u.form.String(s[start:]))
	return b.String()
}

func inRanges(r rune, rs [][2]rune) bool {
	for _, x := range rs {
		if r >= x[0] && r <= x[1] {
			return true
		}
	}
	return false
}

// lowercaseNormalizer maps each character with Rust's char::to_lowercase
// (lowercase17): full mappings without context, so U+0130 (İ) becomes "i̇"
// (unlike strings.ToLower) and a final Σ becomes σ, not ς.
type lowercaseNormalizer struct{}

func (lowercaseNormalizer) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteByte(byte(r) + 'a' - 'A')
		case r < utf8.RuneSelf:
			b.WriteByte(byte(r))
		default:
			if l, ok := lowercase17[r]; ok {
				b.WriteString(l)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// stripNormalizer trims Unicode whitespace on either side.
type stripNormalizer struct{ left, right bool }

func (n stripNormalizer) normalize(s string) string {
	if n.left {
		s = strings.TrimLeftFunc(s, isWhiteSpace)
	}
	if n.right {
		s = strings.TrimRightFunc(s, isWhiteSpace)
	}
	return s
}
