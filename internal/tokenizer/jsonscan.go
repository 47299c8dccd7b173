package tokenizer

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON scanner for the two big parts of tokenizer.json, the vocab
// object and the merges array (Gemma-3: 262k entries and 515k merges in
// 33 MB). encoding/json's reflection takes seconds there (tens of seconds
// under the race detector); this reads them directly. Everything else in
// the file is small and goes through encoding/json.

// scanner walks a JSON document.
type scanner struct {
	b     []byte
	i     int
	depth int // nesting of skip, bounded like encoding/json's
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 10000

func (s *scanner) errorf(format string, a ...any) error {
	return fmt.Errorf("JSON at byte %d: %s", s.i, fmt.Sprintf(format, a...))
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

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("want %q", c)
	}
	s.i++
	return nil
}

// str reads a JSON string, decoding escapes as encoding/json does (an
// unpaired surrogate becomes U+FFFD).
func (s *scanner) str() (string, error) {
	if err := s.expect('"'); err != nil {
		return "", err
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			out := s.b[start:s.i]
			s.i++
			if !utf8.Valid(out) {
				return string([]rune(string(out))), nil // invalid bytes -> U+FFFD, as encoding/json
			}
			return string(out), nil
		}
		if c == '\\' {
			return s.strSlow(start)
		}
		if c < 0x20 {
			return "", s.errorf("control character in string")
		}
		s.i++
	}
	return "", s.errorf("unterminated string")
}

func (s *scanner) strSlow(start int) (string, error) {
	buf := append([]byte(nil), s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(buf) {
				return string([]rune(string(buf))), nil
			}
			return string(buf), nil
		case c < 0x20:
			return "", s.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return "", s.errorf("unterminated escape")
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", s.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					if x, ok := s.hex4(); ok {
						r2 = x
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						continue
					}
					s.i = save
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", s.errorf("bad escape %q", "\\"+string(rune(e)))
		}
	}
	return "", s.errorf("unterminated string")
}

func (s *scanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// integer reads a JSON integer that fits an int.
func (s *scanner) integer() (int, error) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	if err != nil {
		return 0, s.errorf("want an integer")
	}
	return n, nil
}

// skipStr passes over a string without decoding it.
func (s *scanner) skipStr() error {
	if err := s.expect('"'); err != nil {
		return err
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return s.errorf("control character in string")
		default:
			s.i++
		}
	}
	return s.errorf("unterminated string")
}

// skip passes over one JSON value of any kind.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '"':
		return s.skipStr()
	case c == '{' || c == '[':
		s.depth++
		defer func() { s.depth-- }()
		if s.depth > maxDepth {
			return s.errorf("nested too deeply")
		}
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		s.i++
		if s.peek() == close {
			s.i++
			return nil
		}
		for {
			if c == '{' {
				if err := s.skipStr(); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skip(); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case close:
				s.i++
				return nil
			default:
				return s.errorf("want ',' or %q", close)
			}
		}
	case c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9':
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if s.i == start {
					return s.errorf("empty literal")
				}
				return nil
			}
			s.i++
		}
		return nil
	case c == 0:
		return s.errorf("unexpected end")
	default:
		return s.errorf("unexpected %q", c)
	}
}

// object calls field for each key of an object; field must consume the value.
func (s *scanner) object(field func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		k, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(k); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.errorf("want ',' or '}'")
		}
	}
}

// array calls elem for each element; elem must consume it.
func (s *scanner) array(elem func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.errorf("want ',' or ']'")
		}
	}
}

// raw consumes one value and returns its bytes.
func (s *scanner) raw() ([]byte, error) {
	s.ws()
	start := s.i
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

// topLevel splits a JSON object into its members' raw values.
func topLevel(b []byte) (map[string][]byte, error) {
	s := &scanner{b: b}
	out := map[string][]byte{}
	err := s.object(func(k string) error {
		v, err := s.raw()
		out[k] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	if s.peek() != 0 {
		return nil, s.errorf("data after the top-level object")
	}
	return out, nil
}

// scanVocab reads {"token": id, ...}.
func scanVocab(b []byte) (map[string]int, error) {
	s := &scanner{b: b}
	if c := s.peek(); c == 0 || c == 'n' {
		return map[string]int{}, s.skip()
	}
	vocab := make(map[string]int, len(b)/16)
	err := s.object(func(k string) error {
		id, err := s.integer()
		vocab[k] = id
		return err
	})
	return vocab, err
}

// scanMerges reads ["a b", ...] or [["a", "b"], ...].
func scanMerges(b []byte) ([][2]string, error) {
	s := &scanner{b: b}
	if c := s.peek(); c == 0 || c == 'n' {
		return nil, s.skip()
	}
	merges := make([][2]string, 0, len(b)/16)
	err := s.array(func() error {
		if s.peek() == '[' {
			var pair [2]string
			n := 0
			err := s.array(func() error {
				x, err := s.str()
				if n < 2 {
					pair[n] = x
				}
				n++
				return err
			})
			if err != nil {
				return err
			}
			if n != 2 {
				return fmt.Errorf("merge %d has %d parts, want 2", len(merges), n)
			}
			merges = append(merges, pair)
			return nil
		}
		line, err := s.str()
		if err != nil {
			return err
		}
		a, bb, ok := cutSpace(line)
		if !ok {
			return fmt.Errorf("merge %d %q is not \"left right\"", len(merges), line)
		}
		merges = append(merges, [2]string{a, bb})
		return nil
	})
	return merges, err
}
