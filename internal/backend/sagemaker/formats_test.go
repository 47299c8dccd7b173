package sagemaker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// decoded is every field a payload format's decoder writes into a
// Response, with the chunk stamps as the number of the part (1-based)
// that delivered them.
type decoded struct {
	Text             string
	Stamps           []int
	PromptTokens     int // -1 = nil
	CompletionTokens int // -1 = nil
	FinishReason     string
	ErrClass         string
	Err              string
}

// decodeParts feeds parts to a fresh decoder of format f for req, part k
// (1-based) arriving at second k, then finishes at the next second, as
// Send does after a clean end of the event stream.
func decodeParts(f Format, req *backend.Request, parts [][]byte) decoded {
	var resp backend.Response
	b := &Backend{format: f}
	dec := b.newReceiver(req, &resp)
	defer dec.Release()
	t0 := time.Unix(1_700_000_000, 0)
	k := 0
	failed := false
	for _, p := range parts {
		k++
		if dec.Feed(p, t0.Add(time.Duration(k)*time.Second)) != nil {
			failed = true
			break
		}
	}
	if !failed {
		b.finish(dec, &resp, t0.Add(time.Duration(k+1)*time.Second))
	}
	out := decoded{Text: resp.Text, PromptTokens: -1, CompletionTokens: -1,
		FinishReason: resp.FinishReason, ErrClass: resp.ErrClass}
	for _, s := range resp.Chunks.Times() {
		out.Stamps = append(out.Stamps, int(s.Sub(t0)/time.Second))
	}
	if resp.PromptTokens != nil {
		out.PromptTokens = *resp.PromptTokens
	}
	if resp.CompletionTokens != nil {
		out.CompletionTokens = *resp.CompletionTokens
	}
	if resp.Err != nil {
		out.Err = resp.Err.Error()
	}
	return out
}

// lines cuts s into parts after every "\n", so each message arrives in a
// part of its own (one stamp per part).
func lines(s string) [][]byte {
	var parts [][]byte
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			parts = append(parts, []byte(l))
		}
	}
	return parts
}

// TestFormatOutcomes pins every record field each payload format yields
// for a normal stream, an error inside the stream, a truncated stream and
// an empty one, plus the framing corner cases (comments, SSE fields,
// whitespace, JSON split over lines): the rules of docs/sagemaker.md,
// per format. Each part is one second apart, so Stamps shows which read
// completed each token chunk.
func TestFormatOutcomes(t *testing.T) {
	const (
		chatTok  = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":%s}]}`
		chatUse  = `{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
		cmplTok  = `{"id":"c","object":"text_completion","choices":[{"index":0,"text":"%s","finish_reason":%s}]}`
		cmplUse  = `{"id":"c","object":"text_completion","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
		tgiTok   = `{"index":%d,"token":{"id":%d,"text":"%s","logprob":-0.5,"special":false},"generated_text":null,"details":null}`
		tgiLast  = `{"index":2,"token":{"id":2,"text":"b","logprob":-0.5,"special":false},"generated_text":"ab","details":{"finish_reason":"length","generated_tokens":2,"input_length":3}}`
		lmiTok   = `{"token":{"id":[%d],"text":"%s","log_prob":-0.5}}`
		lmiLast  = `{"token":{"id":[2],"text":"b","log_prob":-0.5},"generated_text":"ab","details":{"finish_reason":"length","generated_tokens":2,"inputs":"p"}}`
		vllmErr  = `{"error":{"message":"engine died","type":"InternalServerError"}}`
		tgiError = `{"error":"Request failed during generation: out of memory","error_type":"generation"}`
	)
	req := &backend.Request{Prompt: "p", MaxTokens: 2}
	noUsage := &backend.Request{Prompt: "p", MaxTokens: 2,
		ExtraBody: map[string]any{"stream_options": map[string]any{"include_usage": false}}}
	sse := func(msgs ...string) string {
		var b strings.Builder
		for _, m := range msgs {
			fmt.Fprintf(&b, "data: %s\n\n", m)
		}
		return b.String()
	}
	chat := func(text, finish string) string { return fmt.Sprintf(chatTok, text, finish) }
	cmpl := func(text, finish string) string { return fmt.Sprintf(cmplTok, text, finish) }
	tgi := func(i int, text string) string { return fmt.Sprintf(tgiTok, i, i, text) }
	lmi := func(i int, text string) string { return fmt.Sprintf(lmiTok, i, text) }
	ok := func(text string, stamps []int, prompt, comp int, finish string) decoded {
		return decoded{Text: text, Stamps: stamps, PromptTokens: prompt, CompletionTokens: comp, FinishReason: finish}
	}
	fail := func(d decoded, class, msg string) decoded { d.ErrClass, d.Err = class, msg; return d }
	none := decoded{PromptTokens: -1, CompletionTokens: -1}

	tests := []struct {
		name   string
		format Format
		req    *backend.Request
		stream string
		want   decoded
	}{
		// OpenAI chat (SSE; JSON lines behind LMI).
		{"chat/normal", FormatOpenAIChat, req, sse(chat("", "null"), chat("a", "null"), chat("b", `"length"`), chatUse, "[DONE]"),
			ok("ab", []int{1, 3, 5}, 3, 2, "length")},
		{"chat/error-in-stream", FormatOpenAIChat, req, sse(chat("a", "null"), vllmErr, "[DONE]"),
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrServer, "server error in stream after 1 token chunks: engine died")},
		{"chat/error-first", FormatOpenAIChat, req, sse(vllmErr, "[DONE]"),
			fail(none, record.ErrServer, "Never received a valid chunk to calculate TTFT.This response will be marked as failed! Server error in stream: engine died")},
		{"chat/finish-error", FormatOpenAIChat, req, sse(chat("a", `"error"`), chatUse, "[DONE]"),
			fail(ok("a", []int{1}, 3, 2, "error"), record.ErrServer, `the server ended generation with finish_reason "error" after 1 token chunks`)},
		{"chat/truncated", FormatOpenAIChat, req, sse(chat("a", "null"), chat("b", `"length"`)),
			fail(ok("ab", []int{1, 3}, -1, -1, "length"), record.ErrStreamTruncated, "stream ended after 2 token chunks without [DONE] or a usage frame (the finish chunk arrived but not the usage chunk the request asked for; for a server that never sends usage, pass --extra-body '{\"stream_options\":{\"include_usage\":false}}')")},
		{"chat/truncated-mid-message", FormatOpenAIChat, req, sse(chat("a", "null")) + "data: {\"id\":\"c\",\"cho",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrStreamTruncated, "stream ended inside a message: malformed stream: invalid JSON at byte 14: unterminated string in \"{\\\"id\\\":\\\"c\\\",\\\"cho\"")},
		{"chat/empty", FormatOpenAIChat, req, "",
			fail(none, record.ErrStreamTruncated, "stream ended after 0 token chunks without [DONE] or a usage frame")},
		{"chat/done-only", FormatOpenAIChat, req, sse("[DONE]"),
			fail(none, record.ErrNoContent, "Never received a valid chunk to calculate TTFT.This response will be marked as failed!")},
		{"chat/garbage", FormatOpenAIChat, req, sse(chat("a", "null")) + "hello\n",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrMalformedStream, "malformed stream: unexpected line \"hello\"")},
		{"chat/framing", FormatOpenAIChat, req, ": ping\n\nevent: message\nid: 7\nretry: 10\nevent\n  \ndata:" + chat("a", "null") + "\n\n" + chat("b", "null") + "\ndata: " + chatUse + "\n",
			ok("ab", []int{8, 10}, 3, 2, "")},
		{"chat/leading-space", FormatOpenAIChat, req, " data: " + chat("a", "null") + "\n",
			fail(none, record.ErrMalformedStream, `malformed stream: unexpected line " data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}"`)},
		{"chat/lmi-leading-space", FormatOpenAIChat, noUsage, "  " + chat("a", `"stop"`) + "\n\n",
			ok("a", []int{1}, -1, -1, "stop")},
		{"chat/lmi-json-lines", FormatOpenAIChat, noUsage, chat("a", "null") + "\n" + chat("b", `"stop"`) + "\n\n",
			ok("ab", []int{1, 2}, -1, -1, "stop")},
		{"chat/lmi-json-lines-truncated", FormatOpenAIChat, noUsage, chat("a", "null") + "\n",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrStreamTruncated, "stream ended after 1 token chunks without [DONE] or a usage frame")},

		// OpenAI completions.
		{"completions/normal", FormatOpenAI, req, sse(cmpl("a", "null"), cmpl("b", `"length"`), cmplUse, "[DONE]"),
			ok("ab", []int{1, 3}, 3, 2, "length")},
		{"completions/error-in-stream", FormatOpenAI, req, sse(cmpl("a", "null"), `{"object":"error","message":"bad things"}`),
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrServer, "server error in stream after 1 token chunks: bad things")},
		{"completions/truncated", FormatOpenAI, req, sse(cmpl("a", "null")),
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrStreamTruncated, "stream ended after 1 token chunks without [DONE] or a usage frame")},
		{"completions/empty", FormatOpenAI, req, "",
			fail(none, record.ErrStreamTruncated, "stream ended after 0 token chunks without [DONE] or a usage frame")},

		// TGI generate_stream.
		{"tgi/normal", FormatTGI, req, "data:" + tgi(1, "a") + "\n\ndata:" + tgiLast + "\n\n",
			ok("ab", []int{1, 3}, 3, 2, "length")},
		{"tgi/error-in-stream", FormatTGI, req, "data:" + tgi(1, "a") + "\n\ndata:" + tgiError + "\n\n",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrServer, "the server sent an error inside the stream: generation: Request failed during generation: out of memory")},
		{"tgi/error-object", FormatTGI, req, "data:" + vllmErr + "\n\n",
			fail(none, record.ErrServer, "the server sent an error inside the stream: engine died")},
		{"tgi/truncated", FormatTGI, req, "data:" + tgi(1, "a") + "\n\n",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrStreamTruncated, "stream ended without the final line (generated_text/details) after 1 token chunks")},
		{"tgi/truncated-mid-message", FormatTGI, req, "data:" + tgi(1, "a") + "\n\ndata:{\"index\":2,\"tok",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrStreamTruncated, "stream ended inside a message (15 bytes of incomplete JSON held: \"{\\\"index\\\":2,\\\"tok\")")},
		{"tgi/empty", FormatTGI, req, "",
			fail(none, record.ErrStreamTruncated, "stream ended without the final line (generated_text/details) after 0 token chunks")},
		{"tgi/no-tokens", FormatTGI, req, "data:{\"generated_text\":\"\",\"details\":{\"finish_reason\":\"length\",\"generated_tokens\":0}}\n\n",
			fail(ok("", nil, -1, 0, "length"), record.ErrNoContent, "stream ended without a token")},
		{"tgi/split-json", FormatTGI, req, "data:{\"token\":\n{\"id\":1,\"text\":\"a\"},\ndata: \"generated_text\":\"a\",\"details\":{\"finish_reason\":\"stop\",\"generated_tokens\":1}}\n\n",
			ok("a", []int{3}, -1, 1, "stop")},
		{"tgi/framing", FormatTGI, req, ": ping\n\n  event: x\nid: 1\nretry: 3\n\t[DONE]\ndata:\n  data: " + tgi(1, "a") + "  \r\n\r\n" + tgiLast + "\n",
			ok("ab", []int{8, 10}, 3, 2, "length")},
		{"tgi/comment-inside-json", FormatTGI, req, "data:{\"token\":\n: x\n",
			fail(none, record.ErrMalformedStream, `stream message does not parse: invalid character ':' looking for beginning of value ("{\"token\":\n: x")`)},
		{"tgi/event-without-colon", FormatTGI, req, "event\n",
			fail(none, record.ErrMalformedStream, "stream message does not parse: invalid character 'e' looking for beginning of value (\"event\")")},
		{"tgi/special-token", FormatTGI, req, "data:{\"token\":{\"id\":1,\"text\":\"</s>\",\"special\":true},\"generated_text\":\"\",\"details\":{\"finish_reason\":\"eos_token\",\"generated_tokens\":1}}\n\n",
			ok("", []int{1}, -1, 1, "eos_token")},

		// LMI rolling-batch JSON lines.
		{"lmi/normal", FormatLMI, req, lmi(1, "a") + "\n" + lmiLast + "\n",
			ok("ab", []int{1, 2}, -1, 2, "length")},
		{"lmi/error-in-stream", FormatLMI, req, lmi(1, "a") + "\n{\"token\":{\"id\":[-1],\"text\":\"\"},\"generated_text\":\"a\",\"details\":{\"finish_reason\":\"error\",\"generated_tokens\":1}}\n",
			fail(ok("a", []int{1}, -1, 1, "error"), record.ErrServer, `the server ended generation with finish_reason "error"`)},
		{"lmi/truncated", FormatLMI, req, lmi(1, "a") + "\n",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrStreamTruncated, "stream ended without the final line (generated_text/details) after 1 token chunks")},
		{"lmi/empty", FormatLMI, req, "",
			fail(none, record.ErrStreamTruncated, "stream ended without the final line (generated_text/details) after 0 token chunks")},
		{"lmi/not-json", FormatLMI, req, lmi(1, "a") + "\nnot json at all\n",
			fail(ok("a", []int{1}, -1, -1, ""), record.ErrMalformedStream, "stream message does not parse: invalid character 'o' in literal null (expecting 'u') (\"not json at all\")")},
		{"lmi/not-an-object", FormatLMI, req, "0\n",
			fail(none, record.ErrMalformedStream, `stream message does not parse: a JSON number, not an object ("0")`)},
		{"lmi/field-of-wrong-type", FormatLMI, req, "{\"token\":{\"id\":1,\"text\":5}}\n",
			fail(none, record.ErrMalformedStream, `stream message does not parse: "token.text" is a JSON number, not a string ("{\"token\":{\"id\":1,\"text\":5}}")`)},
		{"tgi/details-not-an-object", FormatTGI, req, "data:{\"details\":[1]}\n\n",
			fail(none, record.ErrMalformedStream, `stream message does not parse: "details" is a JSON array, not an object ("{\"details\":[1]}")`)},
		{"lmi/final-without-newline", FormatLMI, req, lmi(1, "a") + "\n" + lmiLast,
			ok("ab", []int{1, 3}, -1, 2, "length")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeParts(tt.format, tt.req, lines(tt.stream))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The same bytes in one part, and byte by byte: only the
			// stamps may differ.
			for _, parts := range [][][]byte{{[]byte(tt.stream)}, byteParts(tt.stream)} {
				other := decodeParts(tt.format, tt.req, parts)
				other.Stamps, got.Stamps = nil, nil
				if diff := cmp.Diff(got, other); diff != "" {
					t.Errorf("%d parts (-by line +other):\n%s", len(parts), diff)
				}
			}
		})
	}
}

// byteParts cuts s into one-byte parts.
func byteParts(s string) [][]byte {
	return slices.Collect(func(yield func([]byte) bool) {
		for i := range len(s) {
			if !yield([]byte{s[i]}) {
				return
			}
		}
	})
}
