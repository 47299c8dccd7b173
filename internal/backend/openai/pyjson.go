package openai

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// This file writes JSON the way Python's json.dumps does with its defaults,
// which is what vLLM's client (aiohttp's json= argument) puts on the wire:
// ", " and ": " separators, non-ASCII escaped as \uXXXX (ensure_ascii),
// floats in repr form (1.0 stays "1.0"), NaN/Infinity literals. Sending the
// same bytes keeps request sizes, and so server parse cost, identical.
//
// Dict order: Python keeps insertion order, which a Go map does not have.
// Object keys from a map are therefore written sorted, except that "role"
// and then "content" come first (the order chat messages are written in).

// object is an ordered JSON object: keys in the order they were set.
type object struct {
	keys []string
	vals []any
}

// set adds k, or replaces its value in place (Python dict update keeps the
// original position of an existing key).
func (o *object) set(k string, v any) {
	if i := slices.Index(o.keys, k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// appendPy appends v as Python's json.dumps would write it.
func appendPy(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendPyString(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float64:
		return appendPyFloat(dst, x), nil
	case float32:
		return appendPyFloat(dst, float64(x)), nil
	case json.Number:
		// A number parsed from JSON text keeps its literal (an int stays
		// an int), as Python's json.loads + dumps would.
		if _, err := strconv.ParseFloat(string(x), 64); err != nil {
			return dst, fmt.Errorf("invalid number %q", string(x))
		}
		return append(dst, x...), nil
	case *object:
		dst = append(dst, '{')
		for i, k := range x.keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendPyString(dst, k)
			dst = append(dst, ": "...)
			var err error
			if dst, err = appendPy(dst, x.vals[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case map[string]any:
		return appendPy(dst, mapObject(x))
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			var err error
			if dst, err = appendPy(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []map[string]any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			var err error
			if dst, err = appendPy(dst, mapObject(e)); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case json.RawMessage:
		return appendGeneric(dst, x)
	}
	// Anything else (structs, typed slices and maps): through encoding/json
	// to generic values, then as above.
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return append(dst, "null"...), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return appendGeneric(dst, b)
}

// appendGeneric decodes JSON text (numbers kept literal) and re-encodes it.
func appendGeneric(dst, b []byte) ([]byte, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return dst, err
	}
	return appendPy(dst, g)
}

// mapObject orders a map's keys: "role", "content", then the rest sorted.
func mapObject(m map[string]any) *object {
	o := &object{keys: make([]string, 0, len(m)), vals: make([]any, 0, len(m))}
	for _, k := range []string{"role", "content"} {
		if v, ok := m[k]; ok {
			o.set(k, v)
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
		o.set(k, m[k])
	}
	return o
}

const hexDigits = "0123456789abcdef"

// appendPyString writes s with ensure_ascii escaping: \" \\ \n \r \t \b \f,
// other bytes outside printable ASCII (space to "~") as lowercase \uXXXX,
// characters above U+FFFF as surrogate pairs. Invalid UTF-8 is written as
// U+FFFD (a Python str cannot hold it).
func appendPyString(dst []byte, s string) []byte {
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

// appendPyFloat writes f as Python's float repr: the shortest digits that
// round-trip, in fixed notation with at least one decimal ("1.0") when the
// decimal exponent e satisfies -4 <= e < 16, otherwise as "1e-05" /
// "1.5e+16" (two exponent digits at least, sign always). For example
// 0.0001 -> "0.0001", 0.00001 -> "1e-05", 1e15 -> "1000000000000000.0",
// 1e16 -> "1e+16".
func appendPyFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	e := 0
	if f != 0 {
		// The exponent of the shortest round-trip form.
		s := strconv.FormatFloat(f, 'e', -1, 64)
		i := strings.LastIndexByte(s, 'e')
		e, _ = strconv.Atoi(s[i+1:])
	}
	if e < -4 || e >= 16 {
		return strconv.AppendFloat(dst, f, 'e', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	if !strings.ContainsRune(string(dst[start:]), '.') {
		dst = append(dst, ".0"...)
	}
	return dst
}
