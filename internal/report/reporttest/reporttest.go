// Package reporttest holds test helpers for result JSON: an
// order-preserving decoder and the conformance comparison (key order
// exact, strings and integers exact, floats within 1e-9 relative).
package reporttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// CompareResult checks got against want the way the conformance README
// asks: key order and key sets exact, strings/ints/bools/nulls exact,
// floats within 1e-9 relative (absolute near zero). It returns how many
// numbers were textually identical (same Python repr) out of all numbers.
// A want made by a vLLM older than the queue_times key (the vectors of
// August 2026) is compared without got's latencies and queue_times.
func CompareResult(t testing.TB, want, got []byte) (exact, total int) {
	t.Helper()
	w, err := decodeOrdered(want)
	if err != nil {
		t.Fatalf("expected save_result: %v", err)
	}
	g, err := decodeOrdered(got)
	if err != nil {
		t.Fatalf("our result JSON does not parse: %v\n%s", err, got)
	}
	dropNewerKeys(w, g)
	var walk func(path string, w, g any)
	walk = func(path string, w, g any) {
		switch wv := w.(type) {
		case *orderedObject:
			gv, ok := g.(*orderedObject)
			if !ok {
				t.Errorf("%s: got %T, want object", path, g)
				return
			}
			if diff := cmp.Diff(wv.keys, gv.keys); diff != "" {
				t.Errorf("%s: keys (order included) differ (-want +got):\n%s", path, diff)
				return
			}
			for _, k := range wv.keys {
				walk(path+"."+k, wv.vals[k], gv.vals[k])
			}
		case []any:
			gv, ok := g.([]any)
			if !ok || len(gv) != len(wv) {
				t.Errorf("%s: got %v, want %d-element list", path, g, len(wv))
				return
			}
			for i := range wv {
				walk(fmt.Sprintf("%s[%d]", path, i), wv[i], gv[i])
			}
		case json.Number:
			gv, ok := g.(json.Number)
			if !ok {
				t.Errorf("%s: got %v (%T), want number %s", path, g, g, wv)
				return
			}
			total++
			if gv == wv {
				exact++
				return
			}
			if isInt(wv) || isInt(gv) {
				t.Errorf("%s: got %s, want %s (integers and floats must keep their form)", path, gv, wv)
				return
			}
			a, _ := wv.Float64()
			b, _ := gv.Float64()
			if d := math.Abs(a - b); d > 1e-9*math.Max(math.Abs(a), math.Abs(b)) && d > 1e-9 {
				t.Errorf("%s: got %s, want %s (relative difference %.3g)", path, gv, wv, d/math.Abs(a))
			}
		default:
			if !cmp.Equal(w, g) {
				t.Errorf("%s: got %#v, want %#v", path, g, w)
			}
		}
	}
	walk("save_result", w, g)
	return exact, total
}

// newerKeys are the top-level keys vLLM added after the first conformance
// vectors were made (PR #54136): arrays of every request, always saved.
var newerKeys = []string{"latencies", "queue_times"}

// dropNewerKeys removes newerKeys from got's top level when want predates
// them (has no queue_times).
func dropNewerKeys(want, got any) {
	w, ok1 := want.(*orderedObject)
	g, ok2 := got.(*orderedObject)
	if !ok1 || !ok2 {
		return
	}
	if _, ok := w.vals["queue_times"]; ok {
		return
	}
	keys := g.keys[:0:0]
	for _, k := range g.keys {
		newer := false
		for _, n := range newerKeys {
			newer = newer || k == n
		}
		if !newer {
			keys = append(keys, k)
		}
	}
	g.keys = keys
}

func isInt(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

// Object is a decoded JSON object with its key order.
type orderedObject struct {
	keys []string
	vals map[string]any
}

// decodeOrdered decodes JSON keeping object key order and number text.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := &orderedObject{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				o.keys = append(o.keys, k)
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
	}
	return tok, nil
}

// Keys returns the top-level keys of a JSON object in order.
func Keys(data []byte) ([]string, error) {
	v, err := decodeOrdered(data)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*orderedObject)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return o.keys, nil
}
