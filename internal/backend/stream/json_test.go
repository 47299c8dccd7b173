package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// refMessage is what the reference decoder (encoding/json into generic
// values) says about a message; it defines the Decoder's expected output.
type refMessage struct {
	Choices                        int
	Text                           string
	FinishReason                   string
	Usage                          bool
	PromptTokens, CompletionTokens int
	ErrorMessage                   string
}

// refDecode decodes b with encoding/json and applies the Decoder's
// documented rules. It is the oracle for tests and the fuzz target.
func refDecode(b []byte, mode Mode) (refMessage, error) {
	m := refMessage{PromptTokens: -1, CompletionTokens: -1}
	if !json.Valid(b) {
		return m, errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return m, err
	}
	if top == nil {
		return m, errors.New("not an object")
	}
	var text, content *string
	switch c := top["choices"].(type) {
	case nil:
	case []any:
		m.Choices = len(c)
		if len(c) > 0 {
			c0, ok := c[0].(map[string]any)
			if !ok {
				return m, errors.New("choices[0] not an object")
			}
			switch v := c0["text"].(type) {
			case nil:
			case string:
				text = &v
			default:
				return m, errors.New("text type")
			}
			switch v := c0["finish_reason"].(type) {
			case nil:
			case string:
				m.FinishReason = v
			default:
				return m, errors.New("finish_reason type")
			}
			switch d := c0["delta"].(type) {
			case nil:
			case map[string]any:
				switch v := d["content"].(type) {
				case nil:
				case string:
					content = &v
				default:
					return m, errors.New("content type")
				}
			default:
				return m, errors.New("delta type")
			}
		}
	default:
		return m, errors.New("choices type")
	}
	switch u := top["usage"].(type) {
	case nil:
	case map[string]any:
		m.Usage = len(u) > 0
		for _, k := range []string{"prompt_tokens", "completion_tokens"} {
			v := -1
			switch n := u[k].(type) {
			case nil:
			case json.Number:
				f, err := n.Float64()
				if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
					return m, fmt.Errorf("%s out of range", k)
				}
				v = int(f)
			default:
				return m, fmt.Errorf("%s type", k)
			}
			if k == "prompt_tokens" {
				m.PromptTokens = v
			} else {
				m.CompletionTokens = v
			}
		}
	default:
		return m, errors.New("usage type")
	}
	switch e := top["error"].(type) {
	case string:
		m.ErrorMessage = e
	case map[string]any:
		if s, ok := e["message"].(string); ok {
			m.ErrorMessage = s
		}
	}
	if o, _ := top["object"].(string); o == "error" && m.ErrorMessage == "" {
		m.ErrorMessage, _ = top["message"].(string)
		if m.ErrorMessage == "" {
			m.ErrorMessage = "error object without a message"
		}
	}
	switch {
	case mode == ModeCompletions || (mode == ModeAuto && text != nil):
		if text != nil {
			m.Text = *text
		}
	case mode == ModeChat || content != nil:
		if content != nil {
			m.Text = *content
		}
	}
	return m, nil
}

func toRef(m *Message) refMessage {
	return refMessage{m.Choices, string(m.Text), m.FinishReason, m.Usage, m.PromptTokens, m.CompletionTokens, m.ErrorMessage}
}

func TestDecoder(t *testing.T) {
	t.Parallel()
	none := -1
	tests := []struct {
		why  string
		mode Mode
		in   string
		want refMessage // ignored when wantErr
		err  bool
	}{
		{"completions chunk", ModeCompletions,
			`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" world","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
			refMessage{Choices: 1, Text: " world", PromptTokens: none, CompletionTokens: none}, false},
		{"chat role chunk is a token chunk with empty text", ModeChat,
			`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			refMessage{Choices: 1, PromptTokens: none, CompletionTokens: none}, false},
		{"chat finish chunk", ModeChat,
			`{"choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"length","stop_reason":null}]}`,
			refMessage{Choices: 1, Text: "!", FinishReason: "length", PromptTokens: none, CompletionTokens: none}, false},
		{"reasoning is not text but the chunk counts", ModeChat,
			`{"choices":[{"delta":{"reasoning_content":"hmm","content":null}}]}`,
			refMessage{Choices: 1, PromptTokens: none, CompletionTokens: none}, false},
		{"usage chunk", ModeChat,
			`{"id":"c","choices":[],"usage":{"prompt_tokens":12,"total_tokens":140,"completion_tokens":128,"prompt_tokens_details":null}}`,
			refMessage{Usage: true, PromptTokens: 12, CompletionTokens: 128}, false},
		{"usage with null completion_tokens", ModeAuto,
			`{"usage":{"prompt_tokens":3,"completion_tokens":null}}`,
			refMessage{Usage: true, PromptTokens: 3, CompletionTokens: none}, false},
		{"empty usage object is falsy", ModeAuto, `{"choices":[],"usage":{}}`,
			refMessage{PromptTokens: none, CompletionTokens: none}, false},
		{"usage float token count that is integral", ModeAuto, `{"usage":{"completion_tokens":1.2e1}}`,
			refMessage{Usage: true, PromptTokens: none, CompletionTokens: 12}, false},
		{"escapes, surrogate pairs, nested objects in skipped values", ModeCompletions,
			`{"x":{"a":[1,{"b":"}]\"{["}],"c":-1.5e-3},"choices":[{"logprobs":{"tokens":["\"","}"]},"text":"a\"b\\c\/\n\u00e9\ud83d\ude80\ud800x"}]}`,
			refMessage{Choices: 1, Text: "a\"b\\c/\né🚀\uFFFDx", PromptTokens: none, CompletionTokens: none}, false},
		{"auto mode falls back to delta.content", ModeAuto, `{"choices":[{"delta":{"content":"hi"}}]}`,
			refMessage{Choices: 1, Text: "hi", PromptTokens: none, CompletionTokens: none}, false},
		{"auto mode prefers text", ModeAuto, `{"choices":[{"text":"t","delta":{"content":"c"}}]}`,
			refMessage{Choices: 1, Text: "t", PromptTokens: none, CompletionTokens: none}, false},
		{"two choices, text from the first", ModeCompletions, `{"choices":[{"text":"a"},{"text":"b"}]}`,
			refMessage{Choices: 2, Text: "a", PromptTokens: none, CompletionTokens: none}, false},
		{"error object mid-stream", ModeAuto, `{"object":"error","message":"boom","type":"BadRequestError","code":400}`,
			refMessage{PromptTokens: none, CompletionTokens: none, ErrorMessage: "boom"}, false},
		{"nested error", ModeAuto, `{"error":{"message":"overloaded","code":503}}`,
			refMessage{PromptTokens: none, CompletionTokens: none, ErrorMessage: "overloaded"}, false},
		{"escaped key still matches", ModeCompletions, `{"\u0063hoices":[{"te\u0078t":"k"}]}`,
			refMessage{Choices: 1, Text: "k", PromptTokens: none, CompletionTokens: none}, false},
		{"invalid UTF-8 becomes U+FFFD", ModeCompletions, "{\"choices\":[{\"text\":\"a\xffb\"}]}",
			refMessage{Choices: 1, Text: "a\uFFFDb", PromptTokens: none, CompletionTokens: none}, false},
		{"truncated JSON", ModeAuto, `{"choices":[{"text":"a"`, refMessage{}, true},
		{"not an object", ModeAuto, `[1]`, refMessage{}, true},
		{"trailing garbage", ModeAuto, `{} x`, refMessage{}, true},
		{"unescaped control char", ModeAuto, "{\"a\":\"\x01\"}", refMessage{}, true},
		{"bad escape", ModeAuto, `{"a":"\q"}`, refMessage{}, true},
		{"leading zero", ModeAuto, `{"a":01}`, refMessage{}, true},
		{"choices not a list", ModeAuto, `{"choices":{"text":"a"}}`, refMessage{}, true},
		{"choices[0] not an object", ModeAuto, `{"choices":[1]}`, refMessage{}, true},
		{"text not a string", ModeCompletions, `{"choices":[{"text":5}]}`, refMessage{}, true},
		{"negative token count", ModeAuto, `{"usage":{"completion_tokens":-1}}`, refMessage{}, true},
		{"fractional token count", ModeAuto, `{"usage":{"completion_tokens":1.5}}`, refMessage{}, true},
		{"NaN is not JSON", ModeAuto, `{"a":NaN}`, refMessage{}, true},
		{"deep nesting within encoding/json's limit", ModeAuto,
			`{"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
			refMessage{PromptTokens: none, CompletionTokens: none}, false},
		{"nesting beyond encoding/json's limit", ModeAuto,
			`{"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, refMessage{}, true},
		{"duplicate keys: the last wins", ModeChat,
			`{"choices":[{"delta":{"content":"a","content":"b"}}],"choices":[{"delta":{"content":"c"}}]}`,
			refMessage{Choices: 1, Text: "c", PromptTokens: none, CompletionTokens: none}, false},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			d := Decoder{Mode: tt.mode}
			got, err := d.Decode([]byte(tt.in))
			ref, refErr := refDecode([]byte(tt.in), tt.mode)
			if (refErr != nil) != tt.err {
				t.Fatalf("reference decoder disagrees with the table: err=%v", refErr)
			}
			if tt.err {
				if err == nil {
					t.Fatalf("Decode(%s) = %+v, want an error", tt.in, toRef(got))
				}
				if !errors.Is(err, errSyntax) {
					t.Fatalf("error %v does not wrap errSyntax", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if toRef(got) != tt.want || ref != tt.want {
				t.Fatalf("Decode(%s)\n got %+v\n ref %+v\nwant %+v", tt.in, toRef(got), ref, tt.want)
			}
		})
	}
}

// FuzzDecoder checks the Decoder against encoding/json: same acceptance,
// same fields.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"text":"a","finish_reason":"stop"}],"usage":null}`,
		`{"choices":[{"delta":{"content":"\u00e9"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
		`{"object":"error","message":"x"}`,
		`{"a":[1,2,{"b":null}],"c":true,"d":false,"e":-0.5E+3}`,
		`{"choices":[{"text":"\ud83d\ude80"},1]}`,
		`{"choices":null,"usage":{"completion_tokens":1e1}}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, mode uint8) {
		m := Mode(mode % 3)
		d := Decoder{Mode: m}
		got, err := d.Decode(b)
		ref, refErr := refDecode(b, m)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("Decode(%q): err=%v, encoding/json err=%v", b, err, refErr)
		}
		if err == nil && toRef(got) != ref {
			t.Fatalf("Decode(%q)\n got %+v\n ref %+v", b, toRef(got), ref)
		}
	})
}

// TestDecoderHead checks that a Decoder reading a message after another
// gives what a fresh one gives, when the two messages share their head and
// when they only nearly do (the byte after the head's last value decides
// where that value ended).
func TestDecoderHead(t *testing.T) {
	t.Parallel()
	const head = `{"id":"cmpl-1","object":"text_completion","created":12,"model":"m",`
	tests := []struct{ name, first, second string }{
		{"same head", head + `"choices":[{"text":"a"}]}`, head + `"choices":[{"text":"b","finish_reason":"stop"}]}`},
		{"number continues", `{"created":12,"choices":[]}`, `{"created":123,"choices":[{"text":"x"}]}`},
		{"number becomes bad", `{"created":12,"choices":[]}`, `{"created":12.,"choices":[]}`},
		{"space after the head", `{"id":"x","choices":[]}`, `{"id":"x" ,"choices":[{"text":"y"}]}`},
		{"head then end", head + `"choices":[]}`, head[:len(head)-1] + `}`},
		{"head then garbage", head + `"choices":[]}`, head + `"choices":[}`},
		{"head then truncated", head + `"choices":[]}`, head},
		{"key not choices", head + `"choices":[]}`, head + `"usage":{"completion_tokens":3},"choices":[]}`},
		{"usage first", `{"usage":{"prompt_tokens":1},"choices":[]}`, `{"usage":{"prompt_tokens":1},"choices":[{"text":"z"}]}`},
		{"error object first", `{"object":"error","message":"m","choices":[]}`, `{"object":"error","message":"m","choices":[{"text":"z"}]}`},
		{"message first", `{"message":"m","choices":[],"object":"error"}`, `{"message":"m","choices":[{"text":"z"}],"object":"error"}`},
		{"choices twice", `{"id":1,"choices":[{"text":"a"}],"choices":[]}`, `{"id":1,"choices":[],"choices":[{"text":"b"}]}`},
		{"choices first", `{"choices":[{"text":"a"}]}`, `{"choices":[{"text":"b"}]}`},
		{"deep head", `{"x":[[[{"a":[1,{"b":null}]}]]],"choices":[]}`, `{"x":[[[{"a":[1,{"b":null}]}]]],"choices":[{"text":"q"}]}`},
	}
	for _, tt := range tests {
		for _, mode := range []Mode{ModeAuto, ModeCompletions, ModeChat} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, mode), func(t *testing.T) {
				checkAfter(t, mode, []byte(tt.first), []byte(tt.second))
			})
		}
	}
}

// checkAfter decodes second with a Decoder that has read first, and with a
// fresh one, and fails unless both say the same.
func checkAfter(t *testing.T, mode Mode, first, second []byte) {
	t.Helper()
	reused := Decoder{Mode: mode}
	_, _ = reused.Decode(first)
	got, err := reused.Decode(second)
	fresh := Decoder{Mode: mode}
	want, wantErr := fresh.Decode(second)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("after %q, Decode(%q): err %v, a fresh Decoder's %v", first, second, err, wantErr)
	}
	if err == nil && toRef(got) != toRef(want) {
		t.Fatalf("after %q, Decode(%q)\n got %+v\nwant %+v", first, second, toRef(got), toRef(want))
	}
}

// FuzzDecoderHead decodes a message after another that shares some of its
// start: the second's result must not depend on the first.
func FuzzDecoderHead(f *testing.F) {
	f.Add([]byte(`{"id":"x","created":12,"choices":[{"text":"a"}]}`), uint16(23), []byte(`3,"choices":[]}`), uint8(0))
	f.Add([]byte(`{"id":"x","created":12,"choices":[{"text":"a"}]}`), uint16(24), []byte(`"choices":[{"delta":{"content":"b"}}]}`), uint8(2))
	f.Add([]byte(`{"object":"x","choices":[]}`), uint16(14), []byte(`,"usage":{"completion_tokens":2}}`), uint8(1))
	f.Fuzz(func(t *testing.T, first []byte, cut uint16, tail []byte, mode uint8) {
		second := append(first[:int(cut)%(len(first)+1):int(cut)%(len(first)+1)], tail...)
		checkAfter(t, Mode(mode%3), first, second)
	})
}

// TestDecoderNoAllocs: a token chunk (each API) and a usage message decode
// without allocating once the Decoder's buffers have grown.
func TestDecoderNoAllocs(t *testing.T) {
	for _, tt := range []struct {
		mode Mode
		msg  string
	}{
		{ModeCompletions, `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" é","logprobs":null,"finish_reason":null}]}`},
		{ModeChat, `{"id":"c-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":"length"}]}`},
		{ModeChat, `{"id":"c-1","choices":[],"usage":{"prompt_tokens":3,"total_tokens":5,"completion_tokens":2}}`},
	} {
		d := Decoder{Mode: tt.mode}
		msg := []byte(tt.msg)
		if n := testing.AllocsPerRun(100, func() {
			if _, err := d.Decode(msg); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per message, want 0", tt.msg, n)
		}
	}
}

// TestDecoderMemo: a message that is the last token chunk's bytes around
// another text decodes as a fresh Decoder decodes it, whatever the text
// and whatever surrounds it.
func TestDecoderMemo(t *testing.T) {
	t.Parallel()
	const (
		cmplBefore = `{"id":"cmpl-1","object":"text_completion","created":12,"model":"m","choices":[{"index":0,"text":"`
		cmplAfter  = `","logprobs":null,"finish_reason":null,"stop_reason":null}]}`
		chatBefore = `{"id":"c-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"`
		chatAfter  = `"},"logprobs":null,"finish_reason":null}]}`
	)
	texts := []string{"a", " tok", "", `b\"c`, `b","text":"c`, `\n`, "caf\xc3\xa9", "bad\xff", "tab\there", "x\"", "\\", `"`}
	surrounds := []struct{ name, before, after string }{
		{"completions", cmplBefore, cmplAfter},
		{"chat", chatBefore, chatAfter},
		{"text twice", `{"choices":[{"text":"x","text":"`, `"}]}`},
		{"delta twice", `{"choices":[{"delta":{"content":"`, `"},"delta":{}}]}`},
		{"choices twice", `{"choices":[{"text":"`, `"}],"choices":[{"text":"z"}]}`},
		{"second choice", `{"choices":[{"text":"a"},{"text":"`, `"}]}`},
		{"finish reason", `{"choices":[{"text":"`, `","finish_reason":"stop"}]}`},
		{"usage after", `{"choices":[{"text":"`, `"}],"usage":{"completion_tokens":1}}`},
		{"error object", `{"object":"error","choices":[{"text":"`, `"}]}`},
		{"text in a string", `{"choices":[{"text":"a","x":"`, `"}]}`},
		{"not closed", `{"choices":[{"text":"`, `"}]`},
	}
	for _, sr := range surrounds {
		for _, mode := range []Mode{ModeAuto, ModeCompletions, ModeChat} {
			for _, first := range texts[:3] {
				for _, second := range texts {
					checkAfter(t, mode, []byte(sr.before+first+sr.after), []byte(sr.before+second+sr.after))
				}
			}
		}
	}
}

// FuzzDecoderMemo decodes before+text2+after after before+text1+after:
// the result must be a fresh Decoder's.
func FuzzDecoderMemo(f *testing.F) {
	f.Add([]byte(`{"id":"x","choices":[{"index":0,"text":"`), []byte("a"), []byte("b"), []byte(`","finish_reason":null}]}`), uint8(1))
	f.Add([]byte(`{"choices":[{"delta":{"content":"`), []byte(""), []byte(`q\u0041`), []byte(`"}}]}`), uint8(2))
	f.Add([]byte(`{"choices":[{"text":"`), []byte("a"), []byte(`"}],"x":"`), []byte(`"}]}`), uint8(0))
	f.Fuzz(func(t *testing.T, before, text1, text2, after []byte, mode uint8) {
		first := append(append(append([]byte{}, before...), text1...), after...)
		second := append(append(append([]byte{}, before...), text2...), after...)
		checkAfter(t, Mode(mode%3), first, second)
	})
}

// TestDecoderMemoHits: the usual token chunks of both APIs are recalled
// (so TestDecoderMemo compares the memo's path, not only the full one),
// and the last chunk, with its finish_reason, is not.
func TestDecoderMemoHits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode                Mode
		before, after, last string
	}{
		{ModeCompletions, `{"id":"cmpl-1","choices":[{"index":0,"text":"`, `","logprobs":null,"finish_reason":null}]}`, `","logprobs":null,"finish_reason":"length"}]}`},
		{ModeChat, `{"id":"c-1","choices":[{"index":0,"delta":{"content":"`, `"},"finish_reason":null}]}`, `"},"finish_reason":"stop"}]}`},
	} {
		d := Decoder{Mode: tt.mode}
		if _, err := d.Decode([]byte(tt.before + "one" + tt.after)); err != nil {
			t.Fatal(err)
		}
		second := []byte(tt.before + " two" + tt.after)
		if !d.w.recall(&d, second) || string(d.w.msg.Text) != " two" || d.w.msg.Choices != 1 {
			t.Errorf("mode %d: %q not recalled (%+v)", tt.mode, second, d.w.msg)
		}
		if d.w.recall(&d, []byte(tt.before+"three"+tt.last)) {
			t.Errorf("mode %d: the last chunk was recalled", tt.mode)
		}
	}
}
