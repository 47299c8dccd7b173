package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/llmbench/llmbench/internal/record"
)

// Object is a JSON object that keeps its keys in insertion order, like a
// Python dict: setting an existing key replaces its value in place.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Set sets key to v, keeping key's first position.
func (o *Object) Set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// Get returns key's value.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Keys returns the keys in order.
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

// WriteJSON writes o the way Python's json.dump(o, f) does with default
// arguments: separators ", " and ": ", ASCII-only strings, floats in
// Python's repr (1.0, 150.00000000000003, 1e-05), NaN/Infinity bare.
func (o *Object) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := writePy(bw, o); err != nil {
		return err
	}
	return bw.Flush()
}

// String returns o as Python json.dumps would.
func (o *Object) String() string {
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	if err := writePy(bw, o); err != nil {
		return "<" + err.Error() + ">"
	}
	bw.Flush()
	return sb.String()
}

func writePy(w *bufio.Writer, v any) error {
	switch x := v.(type) {
	case nil:
		w.WriteString("null")
	case *Object:
		w.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				w.WriteString(", ")
			}
			writePyString(w, k)
			w.WriteString(": ")
			if err := writePy(w, x.vals[k]); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case string:
		writePyString(w, x)
	case *string:
		if x == nil {
			w.WriteString("null")
		} else {
			writePyString(w, *x)
		}
	case bool:
		w.WriteString(strconv.FormatBool(x))
	case int:
		w.WriteString(strconv.Itoa(x))
	case *int:
		if x == nil {
			w.WriteString("null")
		} else {
			w.WriteString(strconv.Itoa(*x))
		}
	case float64:
		w.WriteString(pyJSONFloat(x))
	case *float64:
		if x == nil {
			w.WriteString("null")
		} else {
			w.WriteString(pyJSONFloat(*x))
		}
	case record.Rate:
		// vLLM writes the infinite rate as the string "inf".
		if x.IsInf() {
			w.WriteString(`"inf"`)
		} else {
			w.WriteString(pyJSONFloat(float64(x)))
		}
	case []int:
		return writeList(w, x, func(n int) error { _, err := w.WriteString(strconv.Itoa(n)); return err })
	case []float64:
		return writeList(w, x, func(f float64) error { _, err := w.WriteString(pyJSONFloat(f)); return err })
	case [][]float64:
		return writeList(w, x, func(l []float64) error { return writePy(w, l) })
	case []string:
		return writeList(w, x, func(s string) error { writePyString(w, s); return nil })
	case []any:
		return writeList(w, x, func(e any) error { return writePy(w, e) })
	case map[string]any:
		// Our own extras (SageMaker settings and the like): sorted keys, so
		// the output stays deterministic.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.WriteString(", ")
			}
			writePyString(w, k)
			w.WriteString(": ")
			if err := writePy(w, x[k]); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	default:
		// Structured extras (CloudWatch and cost summaries) carry their own
		// JSON tags; encoding/json writes them (compact, fields in order).
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("report: cannot write %T as JSON: %w", v, err)
		}
		w.Write(b)
	}
	return nil
}

// writeList writes xs as a JSON list with Python's ", " separator, each
// element by each.
func writeList[T any](w *bufio.Writer, xs []T, each func(T) error) error {
	w.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			w.WriteString(", ")
		}
		if err := each(x); err != nil {
			return err
		}
	}
	return w.WriteByte(']')
}

// pyJSONFloat is Python's JSON text of a float: repr, with NaN, Infinity
// and -Infinity for the non-finite values.
func pyJSONFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return PyRepr(f)
}

// PyRepr formats f like Python's repr(float): the shortest digits that
// read back to f, fixed notation with at least one decimal ("1.0",
// "0.0001") for decimal exponents -4..15, else scientific ("1e-05",
// "1.5e+16"); "inf", "-inf", "nan" for the non-finite values.
func PyRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// writePyString writes s as Python's json.dumps does with ensure_ascii:
// quotes, backslash, \n \r \t \b \f escaped, other control characters and
// all non-ASCII as \uXXXX (UTF-16 surrogate pairs above U+FFFF).
func writePyString(w *bufio.Writer, s string) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		w.WriteString(`\u`)
		w.WriteByte(hex[r>>12&0xf])
		w.WriteByte(hex[r>>8&0xf])
		w.WriteByte(hex[r>>4&0xf])
		w.WriteByte(hex[r&0xf])
	}
	w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				w.WriteString(`\"`)
			case c == '\\':
				w.WriteString(`\\`)
			case c == '\n':
				w.WriteString(`\n`)
			case c == '\r':
				w.WriteString(`\r`)
			case c == '\t':
				w.WriteString(`\t`)
			case c == '\b':
				w.WriteString(`\b`)
			case c == '\f':
				w.WriteString(`\f`)
			case c < 0x20 || c == 0x7f:
				u4(rune(c))
			default:
				w.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r > 0xffff {
			r -= 0x10000
			u4(0xd800 + (r>>10)&0x3ff)
			u4(0xdc00 + r&0x3ff)
		} else {
			u4(r)
		}
	}
	w.WriteByte('"')
}
