package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// byteChar maps each byte to GPT-2's printable stand-in rune: printable
// Latin-1 bytes map to themselves, the other 68 to U+0100 onwards in order.
var byteChar, charByte = func() ([256]rune, map[rune]byte) {
	var bc [256]rune
	cb := make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		printable := b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF
		if printable {
			bc[b] = rune(b)
		} else {
			bc[b] = rune(256 + n)
			n++
		}
		cb[bc[b]] = byte(b)
	}
	return bc, cb
}()

// bytesToUnicode maps every byte of s to its stand-in rune.
func bytesToUnicode(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteChar[s[i]])
	}
	return b.String()
}

// lossyUTF8 converts bytes to a string the way Rust's
// String::from_utf8_lossy does: each maximal invalid subpart (a truncated
// sequence counts once, not once per byte) becomes one U+FFFD.
func lossyUTF8(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if r != utf8.RuneError || n > 1 {
			b.WriteRune(r)
			i += n
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += invalidPrefixLen(p[i:])
	}
	return b.String()
}

// invalidPrefixLen is the length of the maximal prefix of p that starts a
// well-formed UTF-8 sequence but does not complete one (at least 1).
func invalidPrefixLen(p []byte) int {
	c := p[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(p); i++ {
		if p[i] < lo || p[i] > hi {
			return i
		}
		lo, hi = 0x80, 0xBF
	}
	return i
}
