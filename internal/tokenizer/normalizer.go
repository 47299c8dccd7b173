package tokenizer

import (
	"strings"
	"unicode"
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

// unicodeNormalizer applies one of the four Unicode normalization forms.
type unicodeNormalizer struct{ form norm.Form }

func (u unicodeNormalizer) normalize(s string) string { return u.form.String(s) }

// lowercaseNormalizer is Rust's str::to_lowercase: full lowercase mapping,
// which differs from strings.ToLower for U+0130 (İ -> "i̇") and for a final
// capital sigma (Σ -> ς at the end of a word).
type lowercaseNormalizer struct{}

func (lowercaseNormalizer) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case '\u0130':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma applies Unicode's Final_Sigma condition as Rust does: a cased
// letter (skipping case-ignorable ones) before position i, and none after.
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len("Σ"); j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

func caseIgnorable(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) ||
		r == '\'' || r == '.' || r == ':' || r == '^' || r == '`' || r == '\u00b7' || r == '\u2019' || r == '\u2018' || r == '\u2024' || r == '\u2027'
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
