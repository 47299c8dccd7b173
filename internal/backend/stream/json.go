package stream

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Mode selects which field of a token chunk carries its text.
type Mode uint8

const (
	// ModeAuto (the zero value) takes choices[0].text when it is a string,
	// else choices[0].delta.content. Use it when the API is not known.
	ModeAuto Mode = iota
	// ModeCompletions takes choices[0].text only (/v1/completions), as vLLM
	// does for its completions backend.
	ModeCompletions
	// ModeChat takes choices[0].delta.content only (/v1/chat/completions).
	// Reasoning fields (reasoning_content, reasoning) are not text, as in
	// vLLM, but a chunk carrying only them is still a token chunk.
	ModeChat
)

// Message is what Decoder found in one JSON message. Its byte slices point
// into the Decoder's buffers and are valid until the next Decode.
type Message struct {
	// Choices is the length of the "choices" array (0 when absent or null).
	// A message with Choices > 0 is a token chunk, whatever its text.
	Choices int
	// Text is the decoded text of choices[0] chosen by the Mode; empty when
	// the field is absent, null or "".
	Text []byte
	// FinishReason is choices[0].finish_reason; "" when absent or null.
	FinishReason string
	// Usage is true when "usage" is a non-empty object (Python truthiness,
	// as vLLM tests it).
	Usage bool
	// PromptTokens and CompletionTokens are usage.prompt_tokens and
	// usage.completion_tokens; -1 when absent or null.
	PromptTokens     int
	CompletionTokens int
	// ErrorMessage is set when the message is an error object
	// ({"error": {"message": ...}} or {"object": "error", "message": ...}),
	// which some servers send mid-stream.
	ErrorMessage string
}

// Decoder decodes OpenAI-style streaming JSON messages. It validates the
// whole message (anything encoding/json would reject is an error) while
// picking out only the fields a benchmark needs, so that decoding a typical
// chunk allocates nothing. The zero value is ready to use; a Decoder is not
// safe for concurrent use.
type Decoder struct {
	// Mode selects the text field; see Mode.
	Mode Mode

	text    []byte // choices[0].text
	content []byte // choices[0].delta.content
	key     []byte // scratch for keys with escapes
	msg     Message
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 256

// errSyntax is wrapped by every malformed-JSON error.
var errSyntax = errors.New("invalid JSON")

// Decode parses one JSON message. The returned Message is owned by the
// Decoder and valid until the next call.
func (d *Decoder) Decode(b []byte) (*Message, error) {
	d.msg = Message{PromptTokens: -1, CompletionTokens: -1}
	d.text, d.content = d.text[:0], d.content[:0]
	textSet, contentSet := false, false
	s := scanner{b: b}
	s.ws()
	if !s.peek('{') {
		return nil, s.fail("message is not a JSON object")
	}
	isErrorObject := false
	var topMessage []byte
	err := s.object(0, func(key []byte) error {
		switch string(d.unkey(key)) {
		case "choices":
			n, tSet, cSet, err := d.choices(&s)
			d.msg.Choices = n
			textSet, contentSet = tSet, cSet
			return err
		case "usage":
			return d.usage(&s)
		case "error":
			d.msg.ErrorMessage = ""
			s.ws()
			if s.peek('{') {
				return s.object(1, func(k []byte) error {
					if string(d.unkey(k)) == "message" {
						d.msg.ErrorMessage = ""
						v, isStr, err := s.stringOrSkip(2, &d.key)
						if err == nil && isStr {
							d.msg.ErrorMessage = string(v)
						}
						return err
					}
					return s.skip(2)
				})
			}
			v, isStr, err := s.stringOrSkip(1, &d.key)
			if err == nil && isStr {
				d.msg.ErrorMessage = string(v)
			}
			return err
		case "object":
			v, isStr, err := s.stringOrSkip(1, &d.key)
			isErrorObject = err == nil && isStr && string(v) == "error"
			return err
		case "message":
			topMessage = topMessage[:0]
			v, isStr, err := s.stringOrSkip(1, &d.key)
			if err == nil && isStr {
				topMessage = append(topMessage, v...)
			}
			return err
		default:
			return s.skip(1)
		}
	})
	if err != nil {
		return nil, err
	}
	s.ws()
	if s.i != len(s.b) {
		return nil, s.fail("data after the JSON object")
	}
	if isErrorObject && d.msg.ErrorMessage == "" {
		d.msg.ErrorMessage = string(topMessage)
		if d.msg.ErrorMessage == "" {
			d.msg.ErrorMessage = "error object without a message"
		}
	}
	switch {
	case d.Mode == ModeCompletions || (d.Mode == ModeAuto && textSet):
		d.msg.Text = d.text
	case d.Mode == ModeChat || contentSet:
		d.msg.Text = d.content
	}
	return &d.msg, nil
}

// unkey returns the key with JSON escapes decoded. Keys almost never carry
// escapes, so the common path returns the raw bytes.
func (d *Decoder) unkey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	d.key = unescape(d.key[:0], raw)
	return d.key
}

// choices reads the "choices" value: null, or an array whose first element
// (an object) carries the text fields. It returns the array length and
// whether a string text / delta.content was seen.
func (d *Decoder) choices(s *scanner) (n int, textSet, contentSet bool, err error) {
	d.text, d.content, d.msg.FinishReason = d.text[:0], d.content[:0], ""
	s.ws()
	if s.take("null") {
		return 0, false, false, nil
	}
	if !s.peek('[') {
		return 0, false, false, s.fail("choices is not an array")
	}
	err = s.array(1, func(i int) error {
		n++
		if i > 0 {
			return s.skip(2)
		}
		s.ws()
		if !s.peek('{') {
			return s.fail("choices[0] is not an object")
		}
		return s.object(2, func(key []byte) error {
			switch string(d.unkey(key)) {
			case "text":
				d.text = d.text[:0]
				v, err := s.optString(&d.text)
				textSet = v != nil
				return err
			case "finish_reason":
				v, err := s.optString(&d.key)
				if err == nil {
					d.msg.FinishReason = internReason(v)
				}
				return err
			case "delta":
				d.content, contentSet = d.content[:0], false
				s.ws()
				if s.take("null") {
					return nil
				}
				if !s.peek('{') {
					return s.fail("choices[0].delta is not an object")
				}
				return s.object(3, func(k []byte) error {
					if string(d.unkey(k)) == "content" {
						d.content = d.content[:0]
						v, err := s.optString(&d.content)
						contentSet = v != nil
						return err
					}
					return s.skip(4)
				})
			default:
				return s.skip(3)
			}
		})
	})
	return n, textSet, contentSet, err
}

// usage reads the "usage" value: null or an object with token counts.
func (d *Decoder) usage(s *scanner) error {
	d.msg.Usage = false
	d.msg.PromptTokens, d.msg.CompletionTokens = -1, -1
	s.ws()
	if s.take("null") {
		return nil
	}
	if !s.peek('{') {
		return s.fail("usage is not an object")
	}
	keys := 0
	err := s.object(1, func(key []byte) error {
		keys++
		switch k := string(d.unkey(key)); k {
		case "prompt_tokens", "completion_tokens":
			v, err := s.count(k)
			if err != nil {
				return err
			}
			if k == "prompt_tokens" {
				d.msg.PromptTokens = v
			} else {
				d.msg.CompletionTokens = v
			}
			return nil
		default:
			return s.skip(2)
		}
	})
	d.msg.Usage = keys > 0
	return err
}

// internReason returns common finish reasons without allocating.
func internReason(v []byte) string {
	switch string(v) {
	case "":
		return ""
	case "length":
		return "length"
	case "stop":
		return "stop"
	case "eos_token":
		return "eos_token"
	case "stop_sequence":
		return "stop_sequence"
	case "tool_calls":
		return "tool_calls"
	case "abort":
		return "abort"
	}
	return string(v)
}

// scanner is a minimal validating JSON reader over one message.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) fail(what string) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, s.i, what)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// take consumes word if it is next and reports whether it did.
func (s *scanner) take(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// lit consumes the literal word if it is next; it returns an error (without
// consuming anything) otherwise.
func (s *scanner) lit(word string) error {
	if s.take(word) {
		return nil
	}
	return s.fail("expected " + word)
}

// object reads an object at s.i, calling fn for each key with s positioned
// before the value; fn must consume the value.
func (s *scanner) object(depth int, fn func(key []byte) error) error {
	if depth > maxDepth {
		return s.fail("nested too deeply")
	}
	s.i++ // '{'
	s.ws()
	if s.peek('}') {
		s.i++
		return nil
	}
	for {
		s.ws()
		if !s.peek('"') {
			return s.fail("expected a string key")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if !s.peek(':') {
			return s.fail("expected ':'")
		}
		s.i++
		if err := fn(key); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("unterminated object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or '}'")
		}
	}
}

// array reads an array at s.i, calling fn for each element index with s
// positioned before the element; fn must consume it.
func (s *scanner) array(depth int, fn func(i int) error) error {
	if depth > maxDepth {
		return s.fail("nested too deeply")
	}
	s.i++ // '['
	s.ws()
	if s.peek(']') {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := fn(n); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("unterminated array")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or ']'")
		}
	}
}

// skip validates and consumes any one value.
func (s *scanner) skip(depth int) error {
	s.ws()
	if s.i >= len(s.b) {
		return s.fail("unexpected end of JSON")
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth+1, func([]byte) error { return s.skip(depth + 1) })
	case c == '[':
		return s.array(depth+1, func(int) error { return s.skip(depth + 1) })
	case c == '"':
		_, err := s.str()
		return err
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.num()
		return err
	}
	return s.fail("unexpected character")
}

// str reads a string at s.i (which must be '"') and returns its raw
// contents between the quotes, escapes still encoded but validated.
func (s *scanner) str() ([]byte, error) {
	s.i++ // '"'
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			return raw, nil
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return nil, s.fail("unterminated string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					return nil, s.fail(`bad \u escape`)
				}
				s.i += 6
			default:
				return nil, s.fail("bad escape")
			}
		case c < 0x20:
			return nil, s.fail("control character in string")
		default:
			s.i++
		}
	}
	return nil, s.fail("unterminated string")
}

// optString reads a string or null. For a string it appends the decoded
// text to *dst and returns it (non-nil, maybe empty); for null it returns
// nil. Any other type is an error.
func (s *scanner) optString(dst *[]byte) ([]byte, error) {
	s.ws()
	if s.take("null") {
		return nil, nil
	}
	if !s.peek('"') {
		return nil, s.fail("expected a string or null")
	}
	raw, err := s.str()
	if err != nil {
		return nil, err
	}
	start := len(*dst)
	*dst = unescape(*dst, raw)
	return (*dst)[start:len(*dst):len(*dst)], nil
}

// stringOrSkip decodes a string value into (*dst)[:0], or skips any other
// value; isStr tells which happened.
func (s *scanner) stringOrSkip(depth int, dst *[]byte) (v []byte, isStr bool, err error) {
	s.ws()
	if s.peek('"') {
		*dst = (*dst)[:0]
		v, err = s.optString(dst)
		return v, err == nil, err
	}
	return nil, false, s.skip(depth)
}

// num reads a JSON number and returns its raw bytes.
func (s *scanner) num() ([]byte, error) {
	start := s.i
	if s.peek('-') {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.peek('0') {
		s.i++
	} else if digits() == 0 {
		return nil, s.fail("bad number")
	}
	if s.peek('.') {
		s.i++
		if digits() == 0 {
			return nil, s.fail("bad number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, s.fail("bad number")
		}
	}
	return s.b[start:s.i], nil
}

// count reads a token count: a non-negative integer (12 or 12.0), or null
// (returned as -1).
func (s *scanner) count(name string) (int, error) {
	s.ws()
	if s.take("null") {
		return -1, nil
	}
	if s.i >= len(s.b) || !(s.b[s.i] == '-' || (s.b[s.i] >= '0' && s.b[s.i] <= '9')) {
		return 0, s.fail("usage." + name + " is not a number")
	}
	raw, err := s.num()
	if err != nil {
		return 0, err
	}
	if v, err := strconv.Atoi(string(raw)); err == nil {
		if v < 0 || v > math.MaxInt32 {
			return 0, fmt.Errorf("%w: usage.%s is out of range (%d)", errSyntax, name, v)
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("%w: usage.%s is not a non-negative integer (%s)", errSyntax, name, raw)
	}
	return int(f), nil
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

// unescape appends the decoded form of a validated raw JSON string to dst.
// Like encoding/json, an unpaired surrogate and each byte of invalid UTF-8
// become U+FFFD.
func unescape(dst, raw []byte) []byte {
	for {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return appendValid(dst, raw)
		}
		dst = appendValid(dst, raw[:i])
		raw = raw[i:]
		switch raw[1] {
		case 'u':
			r := hexVal(raw[2:6])
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
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
