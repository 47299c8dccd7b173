// Package pyjson writes JSON exactly as Python's json.dumps does with its
// defaults, which is what vLLM writes and sends: ", " and ": " separators,
// non-ASCII escaped as \uXXXX (ensure_ascii), floats in repr form (1.0
// stays "1.0"), NaN and Infinity bare, and objects in insertion order
// (Object), as a Python dict keeps them. Both the result files
// (internal/report) and the request bodies (internal/backend/openai) use
// it, so saved results and request sizes match vLLM's byte for byte.
package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
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
	if o.vals == nil {
		o.vals = map[string]any{}
	}
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
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// Get returns key's value.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Keys returns the keys in order.
func (o *Object) Keys() []string { return slices.Clone(o.keys) }

// WriteJSON writes o the way Python's json.dump(o, f) does with default
// arguments.
func (o *Object) WriteJSON(w io.Writer) error {
	b, err := Marshal(o)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// String returns o as Python's json.dumps would.
func (o *Object) String() string {
	b, err := Marshal(o)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Marshaler is implemented by types that write their own Python JSON
// text (record.Rate writes the infinite rate as the string "inf", as vLLM
// does).
type Marshaler interface {
	AppendPyJSON(dst []byte) []byte
}

// Marshal returns v as Python's json.dumps(v) would.
func Marshal(v any) ([]byte, error) { return Append(nil, v) }

// Append appends v as Python's json.dumps would write it. Maps are written
// with "role" and "content" first (the order chat messages are built in)
// and the other keys sorted, since a Go map has no insertion order; other
// types (structs, typed slices) go through encoding/json and keep its
// field order.
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case Marshaler:
		return x.AppendPyJSON(dst), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		return AppendFloat(dst, x), nil
	case json.Number:
		// A number parsed from JSON text keeps its literal (an int stays
		// an int), as Python's json.loads + dumps would.
		if _, err := strconv.ParseFloat(string(x), 64); err != nil {
			return dst, fmt.Errorf("invalid number %q", string(x))
		}
		return append(dst, x...), nil
	case *Object:
		return appendObject(dst, x)
	case map[string]any:
		return appendObject(dst, ordered(x))
	}
	return appendOther(dst, v)
}

// appendOther writes pointers, slices and the remaining kinds.
func appendOther(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return append(dst, "null"...), nil
		}
		if e := rv.Elem(); e.Kind() != reflect.Struct {
			return Append(dst, e.Interface())
		}
	case reflect.Slice:
		if rv.IsNil() && rv.Type().Elem().Kind() != reflect.Uint8 {
			return append(dst, "[]"...), nil
		}
		if rv.Type().Elem().Kind() != reflect.Uint8 {
			return appendList(dst, rv)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return strconv.AppendInt(dst, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(dst, rv.Uint(), 10), nil
	case reflect.Float32:
		return AppendFloat(dst, rv.Float()), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, fmt.Errorf("pyjson: cannot write %T: %w", v, err)
	}
	return appendGeneric(dst, b)
}

func appendList(dst []byte, rv reflect.Value) ([]byte, error) {
	dst = append(dst, '[')
	for i := range rv.Len() {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		var err error
		if dst, err = Append(dst, rv.Index(i).Interface()); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func appendObject(dst []byte, o *Object) ([]byte, error) {
	dst = append(dst, '{')
	for i, k := range o.keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendString(dst, k)
		dst = append(dst, ": "...)
		var err error
		if dst, err = Append(dst, o.vals[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// ordered orders a map's keys: "role", "content", then the rest sorted.
func ordered(m map[string]any) *Object {
	o := &Object{vals: make(map[string]any, len(m))}
	for _, k := range []string{"role", "content"} {
		if v, ok := m[k]; ok {
			o.Set(k, v)
		}
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		if k != "role" && k != "content" {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		o.Set(k, m[k])
	}
	return o
}

// appendGeneric re-encodes JSON text (from encoding/json) with Python's
// separators, keeping object keys in their order and numbers literal.
func appendGeneric(dst, b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return dst, err
	}
	return Append(dst, v)
}

// decodeOrdered reads one JSON value, objects as *Object in text order.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			var list []any
			for dec.More() {
				e, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, e)
			}
			_, err := dec.Token()
			return append([]any{}, list...), err
		}
		o := NewObject()
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.Set(k.(string), v)
		}
		_, err := dec.Token()
		return o, err
	}
	return tok, nil
}

// AppendFloat writes f as Python's JSON text of a float: its repr, with
// NaN, Infinity and -Infinity for the non-finite values.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return appendRepr(dst, f)
}

// Repr formats f like Python's repr(float): the shortest digits that read
// back to f, fixed notation with at least one decimal ("1.0", "0.0001")
// for decimal exponents -4..15, else scientific ("1e-05", "1.5e+16");
// "inf", "-inf", "nan" for the non-finite values.
func Repr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	var buf [32]byte
	return string(appendRepr(buf[:0], f))
}

// appendRepr appends repr(f) for a finite f. The shortest digits are
// computed once, in scientific form, and placed for fixed notation by
// hand: a result file holds every inter-token gap of the run, and two
// conversions per float were most of the cost of saving it.
func appendRepr(dst []byte, f float64) []byte {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	i := bytes.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(string(e[i+1:])) // no allocation: converted in place
	if exp < -4 || exp >= 16 {
		return append(dst, e...)
	}
	mant := e[:i]
	if mant[0] == '-' {
		dst = append(dst, '-')
		mant = mant[1:]
	}
	var digits [24]byte // "d.ddd" without the point
	nd := copy(digits[:], mant[:1])
	if len(mant) > 2 {
		nd += copy(digits[nd:], mant[2:])
	}
	d := digits[:nd]
	if exp < 0 {
		dst = append(dst, "0."...)
		for range -exp - 1 {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	}
	if len(d) <= exp+1 {
		dst = append(dst, d...)
		for range exp + 1 - len(d) {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	}
	dst = append(dst, d[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, d[exp+1:]...)
}

const hexDigits = "0123456789abcdef"

// AppendString writes s with ensure_ascii escaping: \" \\ \n \r \t \b \f,
// other characters outside printable ASCII (space to "~") as lowercase
// \uXXXX, characters above U+FFFF as surrogate pairs. Invalid UTF-8 is
// written as U+FFFD (a Python str cannot hold it).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r >= ' ' && r <= '~':
			dst = append(dst, byte(r))
		case r > 0xFFFF:
			r -= 0x10000
			dst = appendU(dst, 0xD800+(r>>10))
			dst = appendU(dst, 0xDC00+(r&0x3FF))
		default: // includes utf8.RuneError for invalid bytes
			dst = appendU(dst, r)
		}
	}
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}
