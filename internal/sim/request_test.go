package sim

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		kind    Kind
		body    string
		want    Request
		wantErr string
	}{
		{"vllm bench completions body", KindCompletion,
			`{"model":"m","prompt":"hi there","repetition_penalty":1.0,"max_tokens":128,"logprobs":null,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`,
			Request{Kind: KindCompletion, Model: "m", Prompt: "hi there", MaxTokens: 128, Stream: true, IncludeUsage: true, IgnoreEOS: true}, ""},
		{"vllm bench chat body: content parts, max_completion_tokens", KindChat,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hello"},{"type":"image_url","image_url":{"url":"x"}}]}],"max_completion_tokens":7,"stream":true}`,
			Request{Kind: KindChat, Model: "m", Messages: []Message{{"user", "hello"}}, MaxTokens: 7, Stream: true}, ""},
		{"chat: max_completion_tokens wins over max_tokens", KindChat,
			`{"messages":[{"role":"user","content":"x"}],"max_tokens":3,"max_completion_tokens":9}`,
			Request{Kind: KindChat, Messages: []Message{{"user", "x"}}, MaxTokens: 9}, ""},
		{"integral float accepted (pydantic lax mode)", KindCompletion, `{"prompt":"x","max_tokens":5.0}`,
			Request{Kind: KindCompletion, Prompt: "x", MaxTokens: 5}, ""},
		{"token-id prompt", KindCompletion, `{"prompt":[1,2,3]}`, Request{Kind: KindCompletion, PromptIDs: []int{1, 2, 3}}, ""},
		{"list of one prompt", KindCompletion, `{"prompt":["a b"]}`, Request{Kind: KindCompletion, Prompt: "a b"}, ""},
		{"unknown keys ignored", KindCompletion, `{"prompt":"x","temperature":0.7,"whatever":{"a":1}}`, Request{Kind: KindCompletion, Prompt: "x"}, ""},
		{"n=1 accepted", KindCompletion, `{"prompt":"x","n":1}`, Request{Kind: KindCompletion, Prompt: "x"}, ""},
		{"not JSON", KindCompletion, `hello`, Request{}, "JSON decode error"},
		{"JSON array", KindCompletion, `[1]`, Request{}, "JSON decode error"},
		{"JSON null", KindCompletion, `null`, Request{}, "must be a JSON object"},
		{"trailing data", KindCompletion, `{"prompt":"x"} {}`, Request{}, "trailing data"},
		{"trailing bracket", KindCompletion, `{"prompt":"x"}]`, Request{}, "trailing data"},
		{"trailing whitespace", KindCompletion, "{\"prompt\":\"x\"}\r\n ", Request{Kind: KindCompletion, Prompt: "x"}, ""},
		{"missing prompt", KindCompletion, `{"max_tokens":3}`, Request{}, "prompt: Field required"},
		{"two prompts", KindCompletion, `{"prompt":["a","b"]}`, Request{}, "not supported"},
		{"fractional max_tokens", KindCompletion, `{"prompt":"x","max_tokens":1.5}`, Request{}, "valid integer"},
		{"negative max_tokens", KindCompletion, `{"prompt":"x","max_tokens":-1}`, Request{}, "at least 1"},
		{"string stream", KindCompletion, `{"prompt":"x","stream":"yes"}`, Request{}, "valid boolean"},
		{"n=3", KindCompletion, `{"prompt":"x","n":3}`, Request{}, "n = 3"},
		{"stream_options without stream", KindChat, `{"messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":true}}`, Request{}, "stream=True"},
		{"empty messages", KindChat, `{"messages":[]}`, Request{}, "at least 1 item"},
		{"message without role", KindChat, `{"messages":[{"content":"x"}]}`, Request{}, "role"},
		{"content of the wrong type", KindChat, `{"messages":[{"role":"user","content":5}]}`, Request{}, "content"},
		{"huge max_tokens", KindCompletion, `{"prompt":"x","max_tokens":1e300}`, Request{}, "valid integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRequest(tc.kind, []byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				var ae *apiError
				if !errors.As(err, &ae) || ae.Status != 400 {
					t.Errorf("error %v is not a 400", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tc.want)
			if string(gj) != string(wj) {
				t.Errorf("got  %s\nwant %s", gj, wj)
			}
		})
	}
}

func TestParseInvocationDispatch(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]Kind{
		`{"messages":[{"role":"user","content":"x"}]}`: KindChat,
		`{"prompt":"x"}`: KindCompletion,
		`{"inputs":"x","parameters":{"max_new_tokens":4}}`:           KindGenerate,
		`{"inputs":"x","parameters":{"details":true},"stream":true}`: KindGenerate,
	} {
		r, err := ParseInvocation([]byte(body))
		if err != nil || r.Kind != want {
			t.Errorf("%s: kind %v err %v, want %v", body, r, err, want)
		}
	}
	if _, err := ParseInvocation([]byte(`{"foo":1}`)); err == nil {
		t.Error("a body with no known key was accepted")
	}
}

// FuzzParseRequest: no input panics the parser, every rejection is a 400
// with a one-line message, and every accepted request has sane fields.
func FuzzParseRequest(f *testing.F) {
	seeds := []string{
		`{"model":"m","prompt":"hi","max_tokens":16,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_completion_tokens":3}`,
		`{"messages":[{"role":"user","content":null}],"n":1}`,
		`{"prompt":[[1,2,3]],"max_tokens":2.0}`,
		`{"inputs":"x","parameters":{"max_new_tokens":4,"details":true,"ignore_eos":true},"stream":true}`,
		`{"prompt":"\u0000\ud800","max_tokens":-5}`,
		`{"prompt":{"a":1}}`, `[]`, `null`, `"x"`, `{`, ``, `{"stream_options":1,"stream":true,"prompt":"x"}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, kind := range []Kind{KindCompletion, KindChat, KindGenerate} {
			r, err := parseRequest(kind, []byte(body))
			if err != nil {
				if err.Status != 400 || strings.Contains(err.Message, "\n") || !utf8.ValidString(string(err.body())) {
					t.Fatalf("bad rejection: %+v", err)
				}
				continue
			}
			if r.MaxTokens < 0 || r.Kind != kind {
				t.Fatalf("accepted with bad fields: %+v", r)
			}
			if n := r.promptTokens(WordTokenizer{}); n < 0 {
				t.Fatalf("negative prompt tokens %d", n)
			}
		}
		if r, err := parseInvocation([]byte(body)); err == nil && r == nil {
			t.Fatal("nil request without error")
		}
	})
}
