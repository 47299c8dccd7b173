package openai

import (
	"encoding/json"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
)

// The expected bodies were produced with CPython 3's json.dumps on the
// dicts vLLM builds (docs/metrics.md#request-body), the bytes aiohttp puts on the wire.
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
			got, err := BuildBody(tt.api, tt.logprobs, &tt.req)
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
