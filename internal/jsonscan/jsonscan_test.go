package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// decodeAny builds the generic value of one JSON document with the
// Scanner, the way encoding/json does into `any` with UseNumber: objects
// become map[string]any (last duplicate wins), numbers json.Number.
func decodeAny(b []byte) (any, error) {
	var s Scanner
	s.Reset(b)
	v, err := s.value()
	if err != nil {
		return nil, err
	}
	return v, s.End()
}

func (s *Scanner) value() (any, error) {
	var buf []byte
	switch c := s.Peek(); {
	case c == '{':
		m := map[string]any{}
		err := s.Object(func(key []byte) error {
			k := string(key)
			v, err := s.value()
			m[k] = v
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := s.Array(func(i int) error {
			if i != len(a) {
				return errors.New("index out of step")
			}
			v, err := s.value()
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		v, err := s.String(&buf)
		return string(v), err
	case c == '-' || (c >= '0' && c <= '9'):
		v, err := s.Number()
		return json.Number(v), err
	case s.Null():
		return nil, nil
	}
	start := s.Offset()
	if err := s.Skip(); err != nil {
		return nil, err
	}
	switch string(s.b[start:s.Offset()]) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return nil, errors.New("Skip accepted a value value() did not expect")
}

// stdDecode is encoding/json's view of the document.
func stdDecode(b []byte) (any, error) {
	if !json.Valid(b) {
		return nil, errors.New("invalid")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// skipAll validates the document with Skip alone.
func skipAll(b []byte) error {
	var s Scanner
	s.Reset(b)
	raw, err := s.Raw()
	if err != nil {
		return err
	}
	if err := s.End(); err != nil {
		return err
	}
	if !bytes.Equal(raw, bytes.TrimSpace(b)) {
		return errors.New("Raw is not the value's bytes")
	}
	return nil
}

// checkLikeStd fails t unless the Scanner (both decoding and skipping)
// accepts exactly what encoding/json accepts and decodes the same value.
func checkLikeStd(t *testing.T, b []byte) {
	t.Helper()
	want, wantErr := stdDecode(b)
	got, err := decodeAny(b)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("decode %q: err = %v, encoding/json err = %v", b, err, wantErr)
	}
	if skipErr := skipAll(b); (skipErr != nil) != (wantErr != nil) {
		t.Fatalf("skip %q: err = %v, encoding/json err = %v", b, skipErr, wantErr)
	}
	if err != nil {
		if !errors.Is(err, ErrSyntax) && !strings.Contains(err.Error(), "out of step") {
			t.Fatalf("decode %q: error %v does not wrap ErrSyntax", b, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decode %q\n got %#v\nwant %#v", b, got, want)
	}
}

var likeStd = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, 0, -0, 1E9, true, false, null, "x"]} `,
	`{"a":1,"a":2}`, `{"a":{"b":1},"a":{"c":2}}`,
	`"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\ud83d\ud83d\ude00"`,
	`"\ud800\\"`, `"\ud800\n"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u00E9"`,
	"\"a\xffb\"", "\"\xe2\x82\"", "\"\xed\xa0\x80\"", "{\"\xff\":1}", `{"\u0061":1,"a":2}`,
	// rejected by both
	``, ` `, `{`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `+1`,
	`-`, `NaN`, `Infinity`, `tru`, `nul`, `"\q"`, `"\u12"`, `"\u12g4"`, "\"\x01\"", `"abc`, `"\`,
	`{} {}`, `[1]]`, `{"a":1}}`, "\x00", `[-]`, `{"a":nul}`,
}

func TestLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range likeStd {
		checkLikeStd(t, []byte(in))
	}
}

func TestDepth(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"k":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			doc := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth))
			want := depth <= MaxDepth
			if json.Valid(doc) != want {
				t.Fatalf("encoding/json's limit is not %d", MaxDepth)
			}
			if err := skipAll(doc); (err == nil) != want {
				t.Errorf("Skip depth %d %s: err = %v", depth, open, err)
			} else if !want && !strings.Contains(err.Error(), "nested too deeply") {
				t.Errorf("Skip depth %d: err = %v", depth, err)
			}
			if _, err := decodeAny(doc); (err == nil) != want {
				t.Errorf("Object/Array depth %d %s: err = %v", depth, open, err)
			}
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		aliases  bool // result points into the input
	}{
		{`"plain"`, "plain", true},
		{`"café"`, "café", true},
		{`""`, "", true},
		{`"a\nb"`, "a\nb", false},
		{`"\ud83d\ude00"`, "😀", false},
		{`"\ud800x"`, "\ufffdx", false},
		{`"\ude00\ud83d"`, "\ufffd\ufffd", false},
		{`"\ud83d\ud83d\ude00"`, "\ufffd😀", false},
		{"\"a\xffb\"", "a\ufffdb", false},
		{"\"\xe2\x82\"", "\ufffd\ufffd", false},
	}
	var s Scanner
	var buf []byte
	for _, tt := range tests {
		in := []byte(tt.in)
		s.Reset(in)
		got, err := s.String(&buf)
		if err != nil || string(got) != tt.want {
			t.Errorf("String(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		if aliases := len(got) > 0 && &got[0] == &in[1]; aliases != tt.aliases && len(got) > 0 {
			t.Errorf("String(%s) aliases input = %v, want %v", tt.in, aliases, tt.aliases)
		}
		var std string
		if err := json.Unmarshal(in, &std); err != nil || std != tt.want {
			t.Errorf("encoding/json gives %q for %s, table says %q", std, tt.in, tt.want)
		}
		s.Reset(in)
		app, err := s.AppendString([]byte("x"))
		if err != nil || string(app) != "x"+tt.want {
			t.Errorf("AppendString(%s) = %q, %v", tt.in, app, err)
		}
	}
	s.Reset([]byte(`12`))
	if _, err := s.String(&buf); err == nil {
		t.Error("String accepted a number")
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"0": 0, "-7": -7, " 262143": 262143} {
		var s Scanner
		s.Reset([]byte(in))
		if got, err := s.Int(); err != nil || got != want {
			t.Errorf("Int(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"1.0", "1e2", "01", "-", "99999999999999999999", `"1"`, ""} {
		var s Scanner
		s.Reset([]byte(in))
		var v int
		got, err := s.Int()
		if err == nil {
			err = s.End() // "01" is 0 followed by junk
		}
		if err == nil {
			t.Errorf("Int(%q) = %d, want an error", in, got)
		} else if json.Unmarshal([]byte(in), &v) == nil {
			t.Errorf("Int(%q) fails but encoding/json decodes it into an int", in)
		}
	}
}

// TestCallbackError checks that an error from a callback stops the walk
// and comes back unchanged.
func TestCallbackError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	var s Scanner
	s.Reset([]byte(`{"a":1,"b":2}`))
	n := 0
	err := s.Object(func([]byte) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("Object: err = %v after %d calls", err, n)
	}
	s.Reset([]byte(`[1,2]`))
	n = 0
	err = s.Array(func(int) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("Array: err = %v after %d calls", err, n)
	}
}

// TestNoAllocs checks the claim the stream decoder relies on: a reused
// Scanner walking a typical message allocates nothing.
func TestNoAllocs(t *testing.T) {
	msg := []byte(`{"id":"c-1","choices":[{"index":0,"delta":{"content":" tok\u00e9"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":3}}`)
	var s Scanner
	var text []byte
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset(msg)
		err := s.Object(func(key []byte) error {
			if string(key) != "choices" {
				return s.Skip()
			}
			return s.Array(func(int) error {
				return s.Object(func(key []byte) error {
					if string(key) != "delta" {
						return s.Skip()
					}
					return s.Object(func([]byte) error {
						var err error
						text, err = s.AppendString(text[:0])
						return err
					})
				})
			})
		})
		if err != nil || string(text) != " toké" {
			t.Fatalf("err %v, text %q", err, text)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per message, want 0", allocs)
	}
}

func TestUnescapeMalformedDoesNotPanic(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`\`, `a\u12`, `\u12zz`, `\q`, `\ud800\u12`} {
		_ = Unescape(nil, []byte(raw))
	}
}

// FuzzScanner compares the Scanner with encoding/json on arbitrary input:
// same acceptance, same decoded value.
func FuzzScanner(f *testing.F) {
	for _, s := range likeStd {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		checkLikeStd(t, b)
	})
}

// TestResumeAt reads a document's first member, marks the place, and reads
// the rest of other documents from there: it must be as if each had been
// read from its start, depth included.
func TestResumeAt(t *testing.T) {
	t.Parallel()
	var s Scanner
	s.Reset([]byte(`{"a":[1,{"b":2}],"c":3}`))
	if err := s.BeginObject(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Member(0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := s.Skip(); err != nil {
		t.Fatal(err)
	}
	m := s.Mark()
	if m.Offset() != 16 {
		t.Fatalf("mark at %d, want 16", m.Offset())
	}
	for _, tt := range []struct{ doc, key, value string }{
		{`{"a":[1,{"b":2}],"d":[true]}`, "d", "[true]"},
		{`{"a":[1,{"b":2}],"c":{"e":null}}  `, "c", `{"e":null}`},
	} {
		s.ResumeAt([]byte(tt.doc), m)
		key, ok, err := s.Member(1)
		if err != nil || !ok || string(key) != tt.key {
			t.Fatalf("%s: Member(1) = %q, %v, %v", tt.doc, key, ok, err)
		}
		v, err := s.Raw()
		if err != nil || string(v) != tt.value {
			t.Fatalf("%s: value %q, %v", tt.doc, v, err)
		}
		if _, ok, err := s.Member(2); ok || err != nil {
			t.Fatalf("%s: Member(2) = %v, %v", tt.doc, ok, err)
		}
		if err := s.End(); err != nil || s.depth != 0 {
			t.Fatalf("%s: End %v, depth %d", tt.doc, err, s.depth)
		}
	}
}

// TestSpecial compares special with a byte-by-byte test: every byte value
// in every position among plain ASCII neighbours, and random words.
func TestSpecial(t *testing.T) {
	byByte := func(w uint64) bool {
		for k := 0; k < 8; k++ {
			if c := byte(w >> (8 * k)); !plain[c] || c >= 0x80 {
				return true
			}
		}
		return false
	}
	check := func(w uint64) {
		if got, want := special(w), byByte(w); got != want {
			t.Fatalf("special(%#016x) = %v, want %v", w, got, want)
		}
	}
	for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']'} {
		base := uint64(0)
		for k := 0; k < 8; k++ {
			base |= uint64(fill) << (8 * k)
		}
		for pos := 0; pos < 8; pos++ {
			for c := 0; c < 256; c++ {
				check(base&^(0xff<<(8*pos)) | uint64(c)<<(8*pos))
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		check(rng.Uint64())
		check(rng.Uint64() & 0x7f7f7f7f7f7f7f7f) // ASCII only
	}
}

// FuzzPlain: Plain(b) exactly when the string "b" is read by String as
// one string that is b itself, in place.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "a", "abcdefghijklmnop", `a"b`, `a\nb`, "caf\xc3\xa9", "bad\xff", "tab\t", "\x7f", "12345678\"", "1234567\\8"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc := append(append([]byte{'"'}, b...), '"')
		var s Scanner
		s.Reset(doc)
		var buf []byte
		v, err := s.String(&buf)
		inPlace := err == nil && s.Offset() == len(doc) && len(v) == len(b) && (len(v) == 0 || &v[0] == &doc[1])
		if Plain(b) != inPlace {
			t.Fatalf("Plain(%q) = %v, but String read it in place: %v (err %v)", b, Plain(b), inPlace, err)
		}
	})
}
