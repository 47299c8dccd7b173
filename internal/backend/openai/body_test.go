package openai

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
)

// The expected bodies were produced with CPython 3's json.dumps on the
// dicts vLLM builds (spec §3), the bytes aiohttp puts on the wire.
func TestBuildBody(t *testing.T) {
	t.Parallel()
	one := 1
	tests := []struct {
		why      string
		api      API
		logprobs *int
		req      backend.Request
		want     string
	}{
		{"completions: key order, 1.0, null logprobs, ensure_ascii, extra keys override in place",
			Completions, nil,
			backend.Request{Model: "m", Prompt: "héllo \"x\"\n🚀\x7f<&>", MaxTokens: 128, IgnoreEOS: true,
				ExtraBody: map[string]any{"max_tokens": 64, "temperature": 0.0, "top_k": 50}},
			`{"model": "m", "prompt": "h\u00e9llo \"x\"\n\ud83d\ude80\u007f<&>", "repetition_penalty": 1.0, "max_tokens": 64, "logprobs": null, "stream": true, "stream_options": {"include_usage": true}, "ignore_eos": true, "temperature": 0.0, "top_k": 50}`},
		{"completions without ignore_eos, with logprobs", Completions, &one,
			backend.Request{Model: "m", Prompt: "p", MaxTokens: 1},
			`{"model": "m", "prompt": "p", "repetition_penalty": 1.0, "max_tokens": 1, "logprobs": 1, "stream": true, "stream_options": {"include_usage": true}}`},
		{"chat: one user message with a text part, max_completion_tokens", Chat, nil,
			backend.Request{Model: "m", Prompt: "hi", MaxTokens: 16},
			`{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "max_completion_tokens": 16, "stream": true, "stream_options": {"include_usage": true}}`},
		{"chat: prebuilt messages sent as-is (role, content first), json.Number kept literal", Chat, nil,
			backend.Request{Model: "m", MaxTokens: 2, IgnoreEOS: true,
				Messages:  []map[string]any{{"content": "sys", "role": "system"}, {"role": "user", "content": "q", "name": "u"}},
				ExtraBody: map[string]any{"seed": json.Number("7"), "stream": false}},
			`{"model": "m", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "q", "name": "u"}], "max_completion_tokens": 2, "stream": false, "stream_options": {"include_usage": true}, "ignore_eos": true, "seed": 7}`},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			got, err := buildBody(tt.api, tt.logprobs, &tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("body\n got %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Fatalf("body is not valid JSON: %s", got)
			}
		})
	}
}

// Expected values are Python's repr/json.dumps of the same floats.
func TestAppendPyFloat(t *testing.T) {
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
		if got := string(appendPyFloat(nil, tt.f)); got != tt.want {
			t.Errorf("appendPyFloat(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestAppendPyOther(t *testing.T) {
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
		{s{A: 1, B: 2}, `{"a": 1, "b": 2}`}, // via encoding/json: 2.0 marshals as 2
		{json.RawMessage(`{"z":1.50,"y":[1,2]}`), `{"y": [1, 2], "z": 1.50}`},
		{"\x01\b\f\t\r\u2028", `"\u0001\b\f\t\r\u2028"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
	}
	for _, tt := range tests {
		got, err := appendPy(nil, tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("appendPy(%#v) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
	if _, err := appendPy(nil, json.Number("1x")); err == nil {
		t.Error("invalid json.Number accepted")
	}
}
