package pyjson

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Expected values are Python's repr/json.dumps of the same floats.
func TestAppendFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {0.1, "0.1"},
		{1e-4, "0.0001"}, {1e-5, "1e-05"}, {1.5e-7, "1.5e-07"},
		{1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{123456789012345678, "1.2345678901234568e+17"}, {2.5, "2.5"},
		{1.0 / 3, "0.3333333333333333"}, {1e100, "1e+100"}, {5e-324, "5e-324"},
		{1e22, "1e+22"}, {100, "100.0"}, {12345.678, "12345.678"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat(nil, tt.f)); got != tt.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	type s struct {
		A int     `json:"a"`
		B float64 `json:"b"`
	}
	tests := []struct {
		v    any
		want string
	}{
		{[]any{nil, true, false, "x", int64(-3), uint(4), float32(0.5)}, `[null, true, false, "x", -3, 4, 0.5]`},
		{map[string]any{"b": 1, "a": []string{"é"}}, `{"a": ["\u00e9"], "b": 1}`},
		{s{A: 1, B: 2}, `{"a": 1, "b": 2}`},                                   // via encoding/json: 2.0 marshals as 2
		{json.RawMessage(`{"z":1.50,"y":[1,2]}`), `{"z": 1.50, "y": [1, 2]}`}, // order kept, as json.loads + dumps does
		{"\x01\b\f\t\r\u2028", `"\u0001\b\f\t\r\u2028"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
	}
	for _, tt := range tests {
		got, err := Append(nil, tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("Append(%#v) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
	if _, err := Append(nil, json.Number("1x")); err == nil {
		t.Error("invalid json.Number accepted")
	}
}

// TestObjectOrder: keys stay in insertion order; a re-set key keeps its
// place; Delete removes it.
func TestObjectOrder(t *testing.T) {
	o := NewObject()
	o.Set("b", 1)
	o.Set("a", []float64{1, 0.5})
	o.Set("b", 2.0)
	o.Set("c", (*int)(nil))
	o.Delete("x")
	got, err := Marshal(o)
	if err != nil || string(got) != `{"b": 2.0, "a": [1.0, 0.5], "c": null}` {
		t.Errorf("%s %v", got, err)
	}
	o.Delete("a")
	if k := o.Keys(); len(k) != 2 || k[0] != "b" || k[1] != "c" {
		t.Errorf("keys %v", k)
	}
}

// TestReprMatchesTwoConversions: the one-conversion repr gives what
// formatting in both of Go's notations and choosing gives, over floats of
// every magnitude and the rounding edges of the two notations.
func TestReprMatchesTwoConversions(t *testing.T) {
	t.Parallel()
	reference := func(f float64) string {
		e := strconv.FormatFloat(f, 'e', -1, 64)
		exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		if exp < -4 || exp >= 16 {
			return e
		}
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsRune(s, '.') {
			s += ".0"
		}
		return s
	}
	rng := rand.New(rand.NewPCG(1, 2))
	values := []float64{9.999999999999999e15, 1e16 - 2, 0.0001, 0.00009999999999999999, 123, -0.5, 1e-300}
	for range 200000 {
		values = append(values, math.Float64frombits(rng.Uint64()), rng.Float64()*math.Pow(10, float64(rng.IntN(40)-20)))
	}
	for _, f := range values {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		if got, want := Repr(f), reference(f); got != want {
			t.Fatalf("Repr(%v) = %s, want %s", f, got, want)
		}
	}
}
