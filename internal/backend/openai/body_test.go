package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/pyjson"
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

// TestPlainBodyMatches: the direct writer of a plain request's body gives
// the bytes of the general one, whatever the prompt, model and options.
func TestPlainBodyMatches(t *testing.T) {
	t.Parallel()
	zero, five := 0, 5
	prompts := []string{"", "hi", `a "quoted" \ back\slash`, "tab\tnew\nline\x00\x1f", "é 🚀 \u2028 \ufeff", "\xff\xfe bad utf-8", strings.Repeat("word ", 2000)}
	for _, api := range []API{Completions, Chat} {
		for _, model := range []string{"", "llmbench-sim", `m"odel`} {
			for _, lp := range []*int{nil, &zero, &five} {
				for _, eos := range []bool{false, true} {
					for _, max := range []int{0, 1, 100, -1} {
						for _, p := range prompts {
							req := &backend.Request{Model: model, Prompt: p, MaxTokens: max, IgnoreEOS: eos}
							want, err := pyjson.Append(nil, bodyObject(api, lp, req))
							if err != nil {
								t.Fatal(err)
							}
							if got := appendPlainBody(nil, api, lp, req); !bytes.Equal(got, want) {
								t.Fatalf("api %v model %q logprobs %v eos %v max %d prompt %q:\n got %s\nwant %s", api, model, lp, eos, max, p, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// FuzzPlainBody compares the two writers on arbitrary prompts and models.
func FuzzPlainBody(f *testing.F) {
	f.Add("llmbench-sim", "hello \"world\"", 100, true, false)
	f.Fuzz(func(t *testing.T, model, prompt string, max int, eos, chat bool) {
		api := Completions
		if chat {
			api = Chat
		}
		req := &backend.Request{Model: model, Prompt: prompt, MaxTokens: max, IgnoreEOS: eos}
		want, err := pyjson.Append(nil, bodyObject(api, nil, req))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendPlainBody(nil, api, nil, req); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}
