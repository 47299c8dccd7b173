// Package jsonscan is a validating JSON reader over a byte slice held in
// memory, for the few places where encoding/json's reflection costs too
// much: the per-chunk decode of a streaming response (no allocation per
// message) and the vocab and merges of a large tokenizer.json.
//
// It accepts exactly what encoding/json accepts (RFC 8259 grammar, nesting
// up to MaxDepth) and decodes strings as encoding/json does: each byte of
// invalid UTF-8 and each unpaired surrogate escape becomes U+FFFD. Callers
// walk objects and arrays with callbacks and pick out only the values they
// need; Skip validates the rest.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is wrapped by every error about malformed JSON.
var ErrSyntax = errors.New("invalid JSON")

// MaxDepth bounds nesting, as encoding/json does, so hostile input cannot
// exhaust the stack.
const MaxDepth = 10000

// Scanner reads one JSON document. The zero value reads an empty document;
// Reset points it at another one and keeps its scratch buffer, so a reused
// Scanner does not allocate. A Scanner is not safe for concurrent use.
type Scanner struct {
	b     []byte
	i     int
	depth int    // open objects and arrays
	key   []byte // scratch for object keys that need decoding
}

// Reset makes s read b from its start.
func (s *Scanner) Reset(b []byte) {
	s.b, s.i, s.depth = b, 0, 0
}

// Offset is the index in the document of the next byte to read.
func (s *Scanner) Offset() int { return s.i }

// Mark is a scanner's place in a document: the offset of the next byte
// and the open objects and arrays around it.
type Mark struct{ off, depth int }

// Offset is the index of the next byte to read at m.
func (m Mark) Offset() int { return m.off }

// Mark returns the scanner's place, to resume at in another document.
func (s *Scanner) Mark() Mark { return Mark{s.i, s.depth} }

// ResumeAt makes s read b from m, a Mark taken in an earlier document. The
// scanner's state at a place depends only on the bytes before it, and on
// the byte at it, which ended the value before (a number ends at the first
// byte that cannot continue it): so when b[:m.Offset()+1] equals the
// earlier document's, reading on from m is exactly reading b from its
// start. The caller checks that equality.
func (s *Scanner) ResumeAt(b []byte, m Mark) {
	s.b, s.i, s.depth = b, m.off, m.depth
}

// Errorf returns an error wrapping ErrSyntax that names the current offset.
func (s *Scanner) Errorf(format string, a ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrSyntax, s.i, fmt.Sprintf(format, a...))
}

// space skips whitespace.
func (s *Scanner) space() {
	b, i := s.b, s.i // locals: the compiler keeps them in registers
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	s.i = i
}

// Peek skips whitespace and returns the next byte without consuming it, or
// 0 at the end of the document. Use it to choose how to read the value.
func (s *Scanner) Peek() byte {
	s.space()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// Null consumes a null value if one is next and reports whether it did.
func (s *Scanner) Null() bool {
	s.space()
	return s.take("null")
}

// End reports an error unless only whitespace is left.
func (s *Scanner) End() error {
	s.space()
	if s.i != len(s.b) {
		return s.Errorf("data after the JSON value")
	}
	return nil
}

// take consumes word if it comes next.
func (s *Scanner) take(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// enter opens an object or array, bounding the depth.
func (s *Scanner) enter() error {
	s.depth++
	if s.depth > MaxDepth {
		return s.Errorf("nested too deeply")
	}
	s.i++ // '{' or '['
	return nil
}

// Object reads an object, calling fn for each member with the decoded key
// and the scanner before the value, which fn must consume (Skip it if not
// wanted). key may live in a scratch buffer: it is valid until fn reads a
// nested object, so copy it first if it is needed after. Duplicate keys are
// all passed to fn in order, so a caller storing values gets encoding/json's
// last-one-wins. An error from fn stops the walk and is returned.
func (s *Scanner) Object(fn func(key []byte) error) error {
	if err := s.BeginObject(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		key, ok, err := s.Member(i)
		if err != nil || !ok {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
	}
}

// BeginObject consumes the '{' of an object whose members the caller then
// reads with Member in a loop: Object without a callback, for the
// per-chunk decode, where each level of calls touches stack the cache no
// longer holds at 1,000 streams (BENCHMARKS.md#framing-in-place).
func (s *Scanner) BeginObject() error {
	if s.Peek() != '{' {
		return s.Errorf("want an object")
	}
	return s.enter()
}

// Member reads the separator before member i (0 for the first) and its
// key, leaving the scanner before the value, which the caller must
// consume. ok is false, with the '}' consumed, after the last member. key
// is valid as Object's is.
func (s *Scanner) Member(i int) (key []byte, ok bool, err error) {
	switch c := s.Peek(); {
	case c == '}':
		s.i++
		s.depth--
		return nil, false, nil
	case i > 0 && c == ',':
		s.i++
	case i > 0:
		return nil, false, s.end("object", '}')
	}
	if s.Peek() != '"' {
		return nil, false, s.Errorf("want a string key")
	}
	if key, err = s.String(&s.key); err != nil {
		return nil, false, err
	}
	if s.Peek() != ':' {
		return nil, false, s.Errorf("want ':' after an object key")
	}
	s.i++
	return key, true, nil
}

// Array reads an array, calling fn with each element's index and the
// scanner before the element, which fn must consume. An error from fn
// stops the walk and is returned.
func (s *Scanner) Array(fn func(i int) error) error {
	if err := s.BeginArray(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		ok, err := s.Element(i)
		if err != nil || !ok {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
}

// BeginArray consumes the '[' of an array whose elements the caller then
// reads with Element in a loop (see BeginObject).
func (s *Scanner) BeginArray() error {
	if s.Peek() != '[' {
		return s.Errorf("want an array")
	}
	return s.enter()
}

// Element reads the separator before element i (0 for the first), leaving
// the scanner before it; the caller must consume it. ok is false, with the
// ']' consumed, after the last element.
func (s *Scanner) Element(i int) (ok bool, err error) {
	switch c := s.Peek(); {
	case c == ']':
		s.i++
		s.depth--
		return false, nil
	case i > 0 && c == ',':
		s.i++
	case i > 0:
		return false, s.end("array", ']')
	}
	return true, nil
}

// end is the error for a member not followed by ',' or the closing bracket.
func (s *Scanner) end(what string, close byte) error {
	if s.i >= len(s.b) {
		return s.Errorf("unterminated %s", what)
	}
	return s.Errorf("want ',' or '%c' in %s", close, what)
}

// Skip validates and consumes one value of any kind.
func (s *Scanner) Skip() error {
	s.space()
	if s.i >= len(s.b) {
		return s.Errorf("unexpected end of JSON")
	}
	switch c := s.b[s.i]; c {
	case '{', '[':
		return s.skipContainer(c)
	case '"':
		_, _, err := s.rawString()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		_, err := s.Number()
		return err
	}
	return s.Errorf("unexpected character %q", s.b[s.i])
}

// skipContainer is Skip for an object or array. It does not decode keys,
// so a skipped value leaves the key scratch alone.
func (s *Scanner) skipContainer(open byte) error {
	if err := s.enter(); err != nil {
		return err
	}
	what, close := "object", byte('}')
	if open == '[' {
		what, close = "array", ']'
	}
	if s.Peek() == close {
		s.i++
		s.depth--
		return nil
	}
	for {
		if open == '{' {
			if s.Peek() != '"' {
				return s.Errorf("want a string key")
			}
			if _, _, err := s.rawString(); err != nil {
				return err
			}
			if s.Peek() != ':' {
				return s.Errorf("want ':' after an object key")
			}
			s.i++
		}
		if err := s.Skip(); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case close:
			s.i++
			s.depth--
			return nil
		default:
			return s.end(what, close)
		}
	}
}

func (s *Scanner) literal(word string) error {
	if !s.take(word) {
		return s.Errorf("want %s", word)
	}
	return nil
}

// Raw validates and consumes one value and returns its bytes, which alias
// the document.
func (s *Scanner) Raw() ([]byte, error) {
	s.space()
	start := s.i
	if err := s.Skip(); err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

// plain marks the bytes a string holds as they are: not '"', '\\' or a
// control character. A table lookup measured ~6% faster per streaming chunk
// than three comparisons (and slower under -race, which only tests see).
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// special reports whether any of w's eight bytes is not plain ASCII: '"',
// '\\', a control character or a byte >= 0x80. rawString passes over
// eight plain ASCII bytes at a time with it: a streamed chunk's strings
// are short, and they read 16 % faster than a byte at a time (105 -> 88
// ns, go test -bench RawString ./internal/jsonscan).
// Each test is exact on whether such a byte exists (the classic
// has-zero-byte and has-less-than bit tricks), which is all the loop
// needs: the word that has one is read byte by byte.
func special(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q, bs := w^(lo*'"'), w^(lo*'\\')
	return ((w-lo*0x20)&^w|(q-lo)&^q|(bs-lo)&^bs|w)&hi != 0
}

// Plain reports whether b, put between quotes, is a JSON string that
// decodes to b itself: no quote, backslash or control character, and valid
// UTF-8 (what String returns in place, not decoded).
func Plain(b []byte) bool {
	i := 0
	for i+8 <= len(b) && !special(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	ascii := true
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c < 0x20 || c == '"' || c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}

// rawString reads a string (s.i at its '"') and returns its contents between
// the quotes with escapes validated but still encoded. clean means plain
// ASCII without escapes: the raw bytes are the decoded string.
func (s *Scanner) rawString() (raw []byte, clean bool, err error) {
	s.i++ // '"'
	start := s.i
	var or byte // every byte ORed, to see non-ASCII without a second pass
	esc := false
	for {
		// Locals, not s.b and s.i: through the pointer the compiler
		// reloads and stores them on every byte. This loop is the
		// client's busiest JSON code (BENCHMARKS.md#framing-in-place).
		b, i := s.b, s.i
		for i+8 <= len(b) && !special(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			or |= b[i]
			i++
		}
		s.i = i
		if s.i >= len(s.b) {
			return nil, false, s.Errorf("unterminated string")
		}
		switch c := s.b[s.i]; {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, !esc && or < utf8.RuneSelf, nil
		case c == '\\':
			esc = true
			if s.i+1 >= len(s.b) {
				return nil, false, s.Errorf("unterminated string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					return nil, false, s.Errorf(`bad \u escape`)
				}
				s.i += 6
			default:
				return nil, false, s.Errorf("bad escape")
			}
		default:
			return nil, false, s.Errorf("control character in string")
		}
	}
}

// String reads a string value and returns it decoded. Without escapes or
// invalid UTF-8 (the common case) the result aliases the document;
// otherwise it is decoded into (*buf)[:0], which grows as needed. Anything
// but a string is an error.
func (s *Scanner) String(buf *[]byte) ([]byte, error) {
	if s.Peek() != '"' {
		return nil, s.Errorf("want a string")
	}
	raw, clean, err := s.rawString()
	if err != nil {
		return nil, err
	}
	if clean || (bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)) {
		return raw, nil
	}
	*buf = Unescape((*buf)[:0], raw)
	return *buf, nil
}

// AppendString reads a string value and appends its decoded form to dst.
// Anything but a string is an error.
func (s *Scanner) AppendString(dst []byte) ([]byte, error) {
	if s.Peek() != '"' {
		return dst, s.Errorf("want a string")
	}
	raw, clean, err := s.rawString()
	if err != nil {
		return dst, err
	}
	if clean {
		return append(dst, raw...), nil
	}
	return Unescape(dst, raw), nil
}

// Number reads a number and returns its bytes, checked against the JSON
// grammar (no leading zeros, '+', NaN or Inf).
func (s *Scanner) Number() ([]byte, error) {
	s.space()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if s.digits() == 0 {
		s.i = start
		return nil, s.Errorf("want a number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, s.Errorf("want a digit after '.'")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, s.Errorf("want a digit in the exponent")
		}
	}
	return s.b[start:s.i], nil
}

func (s *Scanner) digits() int {
	b, i := s.b, s.i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n := i - s.i
	s.i = i
	return n
}

// Int reads a number that must be an integer fitting an int, as
// encoding/json requires when decoding into an int (so 1.0 and 1e2 are
// errors).
func (s *Scanner) Int() (int, error) {
	raw, err := s.Number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, s.Errorf("want an integer, found %s", raw)
	}
	return n, nil
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// hexVal decodes four hex digits already checked by isHex4.
func hexVal(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// appendValid appends b to dst with each byte of invalid UTF-8 replaced by
// U+FFFD, as encoding/json does.
func appendValid(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:n]...)
		}
		b = b[n:]
	}
	return dst
}

// Unescape appends the decoded form of raw, the contents of a JSON string
// between its quotes as validated by the Scanner, to dst. Like
// encoding/json, each unpaired surrogate and each byte of invalid UTF-8
// become U+FFFD. raw is meant to come from the Scanner (Raw of a string
// minus its quotes); malformed escapes, which the Scanner rejects, give
// some output but never a panic.
func Unescape(dst, raw []byte) []byte {
	for {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return appendValid(dst, raw)
		}
		dst = appendValid(dst, raw[:i])
		raw = raw[i:]
		if len(raw) < 2 || (raw[1] == 'u' && (len(raw) < 6 || !isHex4(raw[2:6]))) {
			return appendValid(dst, raw)
		}
		switch raw[1] {
		case 'u':
			r := hexVal(raw[2:6])
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' && isHex4(raw[2:6]) {
					r2 = hexVal(raw[2:6])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					raw = raw[6:]
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		default: // '"', '\\', '/'
			dst = append(dst, raw[1])
		}
		raw = raw[2:]
	}
}
