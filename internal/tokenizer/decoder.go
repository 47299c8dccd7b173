package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// decoder turns tokens back into text; decodeChain maps a token list to a
// new list, and the final text is their concatenation, as in tokenizers.
type decoder interface {
	decodeChain(tokens []string) []string
}

type seqDecoder []decoder

func (s seqDecoder) decodeChain(t []string) []string {
	for _, d := range s {
		t = d.decodeChain(t)
	}
	return t
}

// byteLevelDecoder maps stand-in runes back to bytes; a token holding a rune
// outside the table contributes its own UTF-8 bytes.
type byteLevelDecoder struct{}

func (byteLevelDecoder) decodeChain(tokens []string) []string {
	var buf []byte
	for _, t := range tokens {
		start := len(buf)
		ok := true
		for _, r := range t {
			b, found := charByte[r]
			if !found {
				ok = false
				break
			}
			buf = append(buf, b)
		}
		if !ok {
			buf = append(buf[:start], t...)
		}
	}
	return []string{lossyUTF8(buf)}
}

// byteFallbackDecoder turns runs of "<0xHH>" tokens into the text they
// encode; a run that is not valid UTF-8 becomes one U+FFFD per byte.
type byteFallbackDecoder struct{}

func (byteFallbackDecoder) decodeChain(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\ufffd")
			}
		}
		pending = pending[:0]
	}
	for _, t := range tokens {
		if b, ok := parseByteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

func parseByteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v := 0
	for _, c := range []byte(t[3:5]) {
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, false
		}
		v = v*16 + d
	}
	return byte(v), true
}

// fuseDecoder joins all tokens into one.
type fuseDecoder struct{}

func (fuseDecoder) decodeChain(t []string) []string { return []string{strings.Join(t, "")} }

// stripDecoder removes up to start leading and stop trailing content runes
// from every token.
type stripDecoder struct {
	content     rune
	start, stop int
}

func (d stripDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		rs := []rune(t)
		lo := 0
		for j := 0; j < d.start && j < len(rs) && rs[j] == d.content; j++ {
			lo = j + 1
		}
		hi := len(rs)
		for j := 0; j < d.stop && j < len(rs) && rs[len(rs)-1-j] == d.content; j++ {
			hi = len(rs) - 1 - j
		}
		if hi < lo {
			hi = lo
		}
		out[i] = string(rs[lo:hi])
	}
	return out
}

// replaceDecoder replaces pattern matches in every token.
type replaceDecoder struct {
	pat     pattern
	content string
}

func (d replaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = replaceAll(t, d.pat, d.content)
	}
	return out
}

// metaspaceDecoder turns the replacement rune back into spaces, dropping it
// from the first token unless the prepend scheme is "never".
type metaspaceDecoder struct {
	replacement rune
	scheme      prependScheme
}

func (d metaspaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		var b strings.Builder
		for _, r := range t {
			if r == d.replacement {
				if i == 0 && d.scheme != prependNever {
					continue
				}
				r = ' '
			}
			b.WriteRune(r)
		}
		out[i] = b.String()
	}
	return out
}
