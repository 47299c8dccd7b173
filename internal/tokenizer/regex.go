package tokenizer

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// pattern finds the split points of a Split pre-tokenizer or a Replace
// normalizer/decoder. Hugging Face compiles these patterns with Oniguruma,
// so the regex form runs on regexp2 (which has the look-ahead the Llama-3
// and Qwen3 patterns need) after translateRegex has aligned the classes that
// differ between the two engines.
type pattern interface {
	// findAll returns the byte ranges of successive non-overlapping matches.
	findAll(s string) [][2]int
}

// literalPattern matches a fixed string (the {"String": ...} form).
type literalPattern string

func (p literalPattern) findAll(s string) [][2]int {
	if p == "" {
		return nil
	}
	var out [][2]int
	for i := 0; i <= len(s)-len(p); {
		j := strings.Index(s[i:], string(p))
		if j < 0 {
			break
		}
		out = append(out, [2]int{i + j, i + j + len(p)})
		i += j + len(p)
	}
	return out
}

// regexPattern is a compiled Oniguruma-style pattern; src is the pattern
// as tokenizer.json wrote it.
type regexPattern struct {
	re  *regexp2.Regexp
	src string
}

func (p regexPattern) findAll(s string) [][2]int {
	if s == "" {
		return nil
	}
	idx, err := p.re.FindAllStringIndex(s, -1)
	if err != nil {
		// regexp2 fails only on a match timeout (a hostile pattern);
		// treat it as "no match" rather than crash.
		return nil
	}
	out := make([][2]int, len(idx))
	for i, m := range idx {
		out[i] = [2]int{m[0], m[1]}
	}
	return out
}

// matchTimeout bounds one regex search (see compileRegex).
const matchTimeout = 10 * time.Second

// compileRegex compiles an Oniguruma (Ruby syntax, UTF-8) pattern as
// tokenizers uses it.
func compileRegex(expr string) (regexPattern, error) {
	re, err := regexp2.Compile(translateRegex(expr), regexp2.None, regexp2.OptionMaxBacktrackingStackSize(-1))
	if err != nil {
		return regexPattern{}, fmt.Errorf("regex %q: %w", expr, err)
	}
	// A backtracking engine can take exponential time on a hostile pattern
	// such as (a*)*b; the patterns of real tokenizers finish in
	// microseconds, so a match that runs this long is abandoned.
	re.MatchTimeout = matchTimeout
	return regexPattern{re: re, src: expr}, nil
}

// onigWord is Oniguruma's Unicode \w: Letter, Mark, Number and
// Connector_Punctuation. regexp2's \w lacks Mc, Me, Nl and No (and adds
// U+200C/U+200D), so \w is spelled out.
const onigWord = `\p{L}\p{M}\p{N}\p{Pc}`

// translateRegex rewrites the constructs whose meaning differs between
// Oniguruma (as tokenizers 0.22 builds it: Ruby syntax, Unicode 16.0
// tables) and regexp2 (Go's Unicode 15.0 tables):
//   - \p{X} and \P{X} also cover the code points Unicode 16.0 added to X;
//   - \w and \W become explicit classes (see onigWord), \d gets the new
//     decimal digits;
//   - (?i:...) groups of plain literals get each letter expanded to its
//     simple case-fold orbit, because Oniguruma folds U+017F (long s) to
//     "s" and U+212A (Kelvin) to "k" where regexp2's IgnoreCase does not.
//
// \s needs nothing: both engines use the Unicode White_Space set (U+0085
// included, U+FEFF and U+180E excluded).
func translateRegex(expr string) string {
	var b strings.Builder
	inClass := 0
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			n := expr[i+1]
			switch {
			case (n == 'p' || n == 'P') && i+2 < len(expr) && expr[i+2] == '{':
				end := strings.IndexByte(expr[i:], '}')
				if end < 0 {
					b.WriteString(expr[i:])
					return b.String()
				}
				prop := expr[i : i+end+1]
				extra := unicode16Class(expr[i+3 : i+end])
				switch {
				case extra == "":
					b.WriteString(prop)
				case inClass > 0 && n == 'p':
					b.WriteString(prop + extra)
				case inClass > 0:
					b.WriteString(prop) // a negated property inside a class: rare, left as is
				case n == 'p':
					b.WriteString("[" + prop + extra + "]")
				default:
					b.WriteString("[^" + `\p` + prop[2:] + extra + "]")
				}
				i += end + 1
				continue
			case n == 'w' && inClass > 0:
				b.WriteString(onigWord + wordExtra())
			case n == 'w':
				b.WriteString("[" + onigWord + wordExtra() + "]")
			case n == 'W' && inClass == 0:
				b.WriteString("[^" + onigWord + wordExtra() + "]")
			case n == 'd' && inClass > 0:
				b.WriteString(`\d` + unicode16Class("Nd"))
			case n == 'd':
				b.WriteString(`[\d` + unicode16Class("Nd") + "]")
			default:
				// \W or \D inside a class have no simple spelling; keep
				// regexp2's meaning (no known tokenizer uses them).
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i += 2
			continue
		case c == '[':
			inClass++
		case c == ']' && inClass > 0:
			inClass--
		case c == '(' && inClass == 0 && strings.HasPrefix(expr[i:], "(?i:"):
			if end := strings.IndexByte(expr[i:], ')'); end > 0 {
				body := expr[i+4 : i+end]
				if plainAlternation(body) {
					b.WriteString("(?:")
					b.WriteString(foldLiterals(body))
					b.WriteByte(')')
					i += end + 1
					continue
				}
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func wordExtra() string {
	return unicode16Class("L") + unicode16Class("M") + unicode16Class("N") + unicode16Class("Pc")
}

// unicode16Class returns class-body ranges ("a-b...") of the code points
// Unicode 16.0 added to general category cat (one or two letters), or "".
func unicode16Class(cat string) string {
	keys := make([]string, 0, len(unicode16Added))
	for k := range unicode16Added {
		if k == cat || len(cat) == 1 && k[0] == cat[0] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys) // a deterministic pattern text
	var b strings.Builder
	for _, k := range keys {
		for _, r := range unicode16Added[k] {
			b.WriteRune(r[0])
			if r[1] != r[0] {
				b.WriteByte('-')
				b.WriteRune(r[1])
			}
		}
	}
	return b.String()
}

// in16 reports whether r is in one of Go's tables or, per Unicode 16.0, in
// one of the categories named by cats (one or two letters each).
func in16(r rune, tables []*unicode.RangeTable, cats ...string) bool {
	if unicode.In(r, tables...) {
		return true
	}
	for k, rs := range unicode16Added {
		for _, cat := range cats {
			if k == cat || len(cat) == 1 && k[0] == cat[0] {
				for _, x := range rs {
					if r >= x[0] && r <= x[1] {
						return true
					}
				}
			}
		}
	}
	return false
}

// plainAlternation reports whether s holds only literal characters and '|'.
func plainAlternation(s string) bool {
	return !strings.ContainsAny(s, `\[](){}*+?.^$`)
}

// foldLiterals replaces each letter of s with a class of its case-fold orbit.
func foldLiterals(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '|' {
			b.WriteRune(r)
			continue
		}
		if unicode.SimpleFold(r) == r {
			b.WriteString(regexp2.Escape(string(r)))
			continue
		}
		b.WriteByte('[')
		for f := r; ; {
			b.WriteString(regexp2.Escape(string(f)))
			f = unicode.SimpleFold(f)
			if f == r {
				break
			}
		}
		b.WriteByte(']')
	}
	return b.String()
}

// Rust-regex helpers for added tokens: tokenizers decides single_word, lstrip
// and rstrip with the regex crate, whose \w is Unicode "word" (Alphabetic,
// Mark, Decimal_Number, Connector_Punctuation, Join_Control) and \s is
// White_Space.

func isRustWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return r == '\u200c' || r == '\u200d' ||
		in16(r, []*unicode.RangeTable{unicode.L, unicode.Other_Alphabetic, unicode.Nl, unicode.M, unicode.Nd, unicode.Pc}, "L", "Nl", "M", "Nd", "Pc")
}

func isWhiteSpace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isRustWord(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isRustWord(r)
}

// spaceStartAtEnd returns where the run of trailing whitespace of s starts.
func spaceStartAtEnd(s string) int {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !isWhiteSpace(r) {
			break
		}
		i -= n
	}
	return i
}

// spaceEndAtStart returns the length of the leading whitespace of s.
func spaceEndAtStart(s string) int {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWhiteSpace(r) {
			break
		}
		i += n
	}
	return i
}
