package sagemaker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// outcome is what a test compares of a Response (times vary run to run).
type outcome struct {
	Text             string
	Chunks           int
	PromptTokens     *int
	CompletionTokens *int
	FinishReason     string
	ErrClass         string
	Failed           bool
}

func outcomeOf(r *backend.Response) outcome {
	return outcome{
		Text: r.Text, Chunks: r.Chunks.Len(),
		PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		FinishReason: r.FinishReason, ErrClass: r.ErrClass, Failed: r.Err != nil,
	}
}

func intp(n int) *int { return &n }

func newTestBackend(t testing.TB, f *fakeSM, name string, format Format) *Backend {
	t.Helper()
	b, err := New(context.Background(), testConfig(f, name, format))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

func send(t testing.TB, b *Backend, ctx context.Context) *backend.Response {
	t.Helper()
	var resp backend.Response
	b.Send(ctx, &backend.Request{Index: 0, ID: "req-0", Model: "m", Prompt: "Say hi", PromptLen: 3, MaxTokens: 16}, &resp)
	return &resp
}

// TestReassembly sends each format's container stream cut in every way the
// spec lists (1, 7, 4096 bytes, random, at "\n\n", inside UTF-8 characters,
// with empty parts in between) and checks that text, chunk count, token
// counts and finish reason come out exactly as the container wrote them.
func TestReassembly(t *testing.T) {
	spec := streamSpec{tokens: testTokens, finish: "length", promptTokens: 7, usage: true, done: true}
	all := strings.Join(testTokens, "")
	n := len(testTokens)
	formats := []struct {
		name    string
		format  Format
		payload []byte
		want    outcome
	}{
		{"vllm-chat-sse", FormatOpenAIChat, vllmChatSSE(spec),
			outcome{Text: all, Chunks: n + 2, PromptTokens: intp(7), CompletionTokens: intp(n), FinishReason: "length"}},
		{"vllm-completions-sse", FormatOpenAI, vllmCompletionsSSE(spec),
			outcome{Text: all, Chunks: n, PromptTokens: intp(7), CompletionTokens: intp(n), FinishReason: "length"}},
		{"lmi-chat-jsonlines", FormatOpenAIChat, lmiChatJSONLines(spec),
			outcome{Text: all, Chunks: n + 2, PromptTokens: intp(7), CompletionTokens: intp(n), FinishReason: "length"}},
		{"tgi-sse", FormatTGI, tgiSSE(spec),
			outcome{Text: all, Chunks: n, PromptTokens: intp(7), CompletionTokens: intp(n), FinishReason: "length"}},
		{"lmi-tokens", FormatLMI, lmiTokenLines(spec),
			outcome{Text: all, Chunks: n, CompletionTokens: intp(n), FinishReason: "length"}},
	}
	splits := []struct {
		name string
		s    splitter
	}{
		{"whole", func(b []byte) [][]byte { return [][]byte{b} }},
		{"1", fixedSplit(1)},
		{"7", fixedSplit(7)},
		{"4096", fixedSplit(4096)},
		{"random", randomSplit(1, 50)},
		{"at-event-end", splitAtEventEnd},
		{"inside-utf8", splitInsideRunes},
		{"empties-7", withEmpties(fixedSplit(7))},
	}
	f := newFakeSM(t, false)
	for _, fm := range formats {
		for _, sp := range splits {
			name := fmt.Sprintf("%s-%s", fm.name, sp.name)
			f.on(name, streamParts(fm.payload, sp.s, 0))
			t.Run(name, func(t *testing.T) {
				b := newTestBackend(t, f, name, fm.format)
				resp := send(t, b, context.Background())
				if resp.Err != nil {
					t.Fatalf("Send failed: %v (class %s)", resp.Err, resp.ErrClass)
				}
				if diff := cmp.Diff(fm.want, outcomeOf(resp)); diff != "" {
					t.Errorf("outcome (-want +got):\n%s", diff)
				}
				if resp.HTTPStatus != 200 {
					t.Errorf("HTTPStatus = %d, want 200", resp.HTTPStatus)
				}
				for i := 1; i < resp.Chunks.Len(); i++ {
					if resp.Chunks.At(i).Before(resp.Chunks.At(i - 1)) {
						t.Fatalf("chunk times not monotonic at %d", i)
					}
				}
				if resp.Chunks.Len() > 0 && resp.Chunks.At(0).Before(resp.Start) {
					t.Errorf("first chunk before Start")
				}
			})
		}
	}
}

// TestChunkStampsFollowArrival checks the timing rule: a chunk is stamped
// when the part that completes it arrives, not when the stream ends. The
// fake sends one SSE event in two parts (the data line, then the blank
// line closing the event), 20 ms apart, notes when it began writing each
// part, and holds the part carrying the last token chunk back for a
// second. The parser acts on the data line, so part 2k completes token
// chunk k.
func TestChunkStampsFollowArrival(t *testing.T) {
	f := newFakeSM(t, false)
	spec := streamSpec{tokens: []string{"a", "b", "c"}, finish: "stop", promptTokens: 1, usage: true, done: true}
	parts := splitAtEventEnd(vllmChatSSE(spec))
	const gap, hold = 20 * time.Millisecond, time.Second
	const lastChunkPart = 2 * 4
	var began []time.Time // when the write of part i began
	f.on("paced", func(w http.ResponseWriter, r *http.Request, _ []byte, _ <-chan struct{}) {
		fw := startStream(w)
		for i, p := range parts {
			wait := gap
			if i == lastChunkPart {
				wait = hold
			}
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				return
			}
			began = append(began, time.Now())
			if fw.part(p) != nil {
				return
			}
		}
	})
	b := newTestBackend(t, f, "paced", FormatOpenAIChat)
	resp := send(t, b, context.Background())
	if resp.Err != nil {
		t.Fatal(resp.Err)
	}
	if resp.Chunks.Len() != 5 || len(began) != len(parts) {
		t.Fatalf("chunks = %d, want 5 (%d of %d parts written)", resp.Chunks.Len(), len(began), len(parts))
	}
	// Causality: no chunk is stamped before its completing part was sent.
	for k, stamp := range resp.Chunks.Times() {
		if w := began[2*k]; stamp.Before(w) {
			t.Errorf("chunk %d stamped %v before the part completing it was written", k, w.Sub(stamp))
		}
	}
	// Arrival, not buffering: the first chunk is stamped before the last
	// chunk's part is even written (a second later).
	if first, last := resp.Chunks.At(0), began[lastChunkPart]; !first.Before(last) {
		t.Errorf("first chunk stamped %v after the last chunk's part was written: stamped after buffering", first.Sub(last))
	}
	if ttft := resp.Chunks.At(0).Sub(resp.Start); ttft < gap {
		t.Errorf("TTFT = %v, want >= %v (the first chunk was sent after one gap)", ttft, gap)
	}
}

// TestRequest checks what goes on the wire: path, SageMaker headers, the
// body of each format, the signature scope.
func TestRequest(t *testing.T) {
	f := newFakeSM(t, false)
	ok := streamParts(vllmChatSSE(streamSpec{tokens: []string{"x"}, finish: "stop", usage: true, done: true}), fixedSplit(7), 0)
	f.on("hdrs", ok)
	cfg := testConfig(f, "hdrs", FormatOpenAIChat)
	cfg.TargetVariant = "variant-1"
	cfg.TargetContainerHostname = "container-a"
	cfg.InferenceComponent = "ic-1"
	cfg.CustomAttributes = "trace=on"
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		if s := fmt.Sprintf(verb, cfg); strings.Contains(s, "trace=on") {
			t.Errorf("%s of Config shows the custom attributes: %s", verb, s)
		}
	}
	b, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var resp backend.Response
	b.Send(context.Background(), &backend.Request{ID: "req-42", Model: "llama", Prompt: "hi", MaxTokens: 5, IgnoreEOS: true,
		ExtraBody: map[string]any{"temperature": 0.0}}, &resp)
	if resp.Err != nil {
		t.Fatal(resp.Err)
	}
	r, body := f.request("hdrs")
	for h, want := range map[string]string{
		"Content-Type":                               "application/json",
		"X-Amzn-Sagemaker-Target-Variant":            "variant-1",
		"X-Amzn-Sagemaker-Target-Container-Hostname": "container-a",
		"X-Amzn-Sagemaker-Inference-Component":       "ic-1",
		"X-Amzn-Sagemaker-Custom-Attributes":         "trace=on",
		"X-Amzn-Sagemaker-Inference-Id":              "req-42",
		"Amz-Sdk-Request":                            "attempt=1; max=1",
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	if auth := r.Header.Get("Authorization"); !strings.Contains(auth, "/us-east-1/sagemaker/aws4_request") {
		t.Errorf("Authorization scope wrong: %q", auth)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model":                 "llama",
		"messages":              []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}}}},
		"max_completion_tokens": 5.0,
		"stream":                true,
		"stream_options":        map[string]any{"include_usage": true},
		"ignore_eos":            true,
		"temperature":           0.0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestBodies checks each format's request body: the OpenAI formats carry
// the OpenAI backend's bytes (vLLM bench's key order and number format).
func TestBodies(t *testing.T) {
	req := &backend.Request{Model: "m", Prompt: "p", MaxTokens: 9, IgnoreEOS: true, ExtraBody: map[string]any{"temperature": 0.5}}
	tests := []struct {
		f    Format
		want string
	}{
		{FormatOpenAI, `{"model": "m", "prompt": "p", "repetition_penalty": 1.0, "max_tokens": 9, "logprobs": null, "stream": true, "stream_options": {"include_usage": true}, "ignore_eos": true, "temperature": 0.5}`},
		{FormatOpenAIChat, `{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "p"}]}], "max_completion_tokens": 9, "stream": true, "stream_options": {"include_usage": true}, "ignore_eos": true, "temperature": 0.5}`},
		{FormatTGI, `{"inputs":"p","parameters":{"details":true,"max_new_tokens":9,"temperature":0.5},"stream":true}`},
		{FormatLMI, `{"inputs":"p","parameters":{"details":true,"ignore_eos":true,"max_new_tokens":9,"temperature":0.5},"stream":true}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			b := &Backend{format: tt.f}
			got, err := b.body(req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("body\n got %s\nwant %s", got, tt.want)
			}
			big := &backend.Request{Prompt: strings.Repeat("x", maxBodyBytes)}
			if _, err := b.body(big); err == nil || !strings.Contains(err.Error(), "limit") {
				t.Errorf("oversized body: err = %v, want the 6 MiB limit", err)
			}
		})
	}
}

// TestStreamEvents covers stream content the SDK delivers besides parts:
// an unknown event type is skipped, empty parts are harmless.
func TestUnknownEventSkipped(t *testing.T) {
	f := newFakeSM(t, false)
	payload := vllmChatSSE(streamSpec{tokens: []string{"a", "b"}, finish: "stop", promptTokens: 2, usage: true, done: true})
	f.on("unknown", func(w http.ResponseWriter, r *http.Request, _ []byte, _ <-chan struct{}) {
		fw := startStream(w)
		parts := fixedSplit(13)(payload)
		for i, p := range parts {
			if i == 2 {
				fw.unknownEvent("FutureEvent", []byte(`{"x":1}`))
				fw.part(nil)
			}
			fw.part(p)
		}
	})
	b := newTestBackend(t, f, "unknown", FormatOpenAIChat)
	resp := send(t, b, context.Background())
	want := outcome{Text: "ab", Chunks: 4, PromptTokens: intp(2), CompletionTokens: intp(2), FinishReason: "stop"}
	if diff := cmp.Diff(want, outcomeOf(resp)); diff != "" {
		t.Errorf("outcome (-want +got):\n%s (err %v)", diff, resp.Err)
	}
}

// TestEndMarkers: success needs the format's end marker; a stream cut
// before it is stream_truncated even though the SDK reports no error.
func TestEndMarkers(t *testing.T) {
	toks := []string{"a", "b", "c"}
	full := streamSpec{tokens: toks, finish: "stop", promptTokens: 2, usage: true, done: true}
	tests := []struct {
		name    string
		format  Format
		payload []byte
		class   string // "" = success
	}{
		{"chat complete", FormatOpenAIChat, vllmChatSSE(full), ""},
		{"chat usage without [DONE]", FormatOpenAIChat, vllmChatSSE(streamSpec{tokens: toks, finish: "stop", usage: true}), ""},
		{"chat [DONE] without usage", FormatOpenAIChat, vllmChatSSE(streamSpec{tokens: toks, finish: "stop", done: true}), ""},
		// docs/sagemaker.md#end-markers: the finish chunk arrived, the usage chunk and [DONE] did not.
		{"chat cut after finish", FormatOpenAIChat, vllmChatSSE(streamSpec{tokens: toks, finish: "stop"}), record.ErrStreamTruncated},
		{"lmi chat cut after finish", FormatOpenAIChat, lmiChatJSONLines(streamSpec{tokens: toks, finish: "stop"}), record.ErrStreamTruncated},
		{"chat cut mid-stream", FormatOpenAIChat, vllmChatSSE(full)[:200], record.ErrStreamTruncated},
		{"chat no content", FormatOpenAIChat, []byte("data: [DONE]\n\n"), record.ErrNoContent},
		{"chat error object then [DONE]", FormatOpenAIChat, []byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"error\":{\"message\":\"engine died\"}}\n\ndata: [DONE]\n\n"), ClassServerError},
		{"chat garbage", FormatOpenAIChat, []byte("data: {\"choices\": [}\n\n"), record.ErrMalformedStream},
		{"tgi complete", FormatTGI, tgiSSE(full), ""},
		{"tgi without final", FormatTGI, tgiSSE(streamSpec{tokens: toks}), record.ErrStreamTruncated},
		{"tgi cut inside JSON", FormatTGI, tgiSSE(full)[:len(tgiSSE(full))-20], record.ErrStreamTruncated},
		{"tgi pretty-printed JSON", FormatTGI, []byte("data:{\"token\":\n{\"id\":1,\"text\":\"a\"},\n\"generated_text\":\"a\",\"details\":{\"finish_reason\":\"stop\",\"generated_tokens\":1}}\n\n"), ""},
		{"tgi error event", FormatTGI, []byte("data:{\"token\":{\"id\":1,\"text\":\"a\"}}\n\ndata:{\"error\":\"Request failed during generation: out of memory\",\"error_type\":\"generation\"}\n\n"), ClassServerError},
		{"tgi no tokens", FormatTGI, []byte("data:{\"generated_text\":\"\",\"details\":{\"finish_reason\":\"length\",\"generated_tokens\":0}}\n\n"), record.ErrNoContent},
		{"lmi complete", FormatLMI, lmiTokenLines(full), ""},
		{"lmi without final", FormatLMI, lmiTokenLines(streamSpec{tokens: toks}), record.ErrStreamTruncated},
		{"lmi finish error", FormatLMI, []byte("{\"token\":{\"id\":[1],\"text\":\"a\"}}\n{\"token\":{\"id\":[-1],\"text\":\"\"},\"generated_text\":\"a\",\"details\":{\"finish_reason\":\"error\",\"generated_tokens\":1}}\n"), ClassServerError},
		{"lmi not json", FormatLMI, []byte("{\"token\":{\"id\":[1],\"text\":\"a\"}}\nnot json at all\n"), record.ErrMalformedStream},
	}
	f := newFakeSM(t, false)
	for i, tt := range tests {
		name := fmt.Sprintf("end-%d", i)
		f.on(name, streamParts(tt.payload, fixedSplit(7), 0))
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBackend(t, f, name, tt.format)
			resp := send(t, b, context.Background())
			if resp.ErrClass != tt.class || (resp.Err == nil) != (tt.class == "") {
				t.Errorf("class = %q (err %v), want %q", resp.ErrClass, resp.Err, tt.class)
			}
		})
	}
}

// TestNoUsageAsked: when --extra-body turns include_usage off, a JSON-lines
// stream (LMI) ends properly at the finish chunk; with usage asked for, the
// same stream is truncated and the message says how to switch it off.
func TestNoUsageAsked(t *testing.T) {
	f := newFakeSM(t, false)
	f.on("lmi-nousage", streamParts(lmiChatJSONLines(streamSpec{tokens: []string{"a", "b"}, finish: "stop", done: true}), fixedSplit(5), 0))
	b := newTestBackend(t, f, "lmi-nousage", FormatOpenAIChat)
	var off backend.Response
	b.Send(context.Background(), &backend.Request{Prompt: "p", MaxTokens: 2,
		ExtraBody: map[string]any{"stream_options": map[string]any{"include_usage": false}}}, &off)
	if off.Err != nil || off.Text != "ab" || off.FinishReason != "stop" {
		t.Errorf("include_usage off: err %v text %q finish %q", off.Err, off.Text, off.FinishReason)
	}
	_, body := f.request("lmi-nousage")
	if !strings.Contains(string(body), `"include_usage": false`) {
		t.Errorf("body does not carry the override: %s", body)
	}
	on := send(t, b, context.Background())
	if on.ErrClass != record.ErrStreamTruncated || !strings.Contains(on.Err.Error(), "include_usage") {
		t.Errorf("include_usage on: class %q err %v", on.ErrClass, on.Err)
	}
}

// TestNotAnEventStream: a 200 answer that is plain SSE (--endpoint-url at
// the model server itself) fails with a message that says so.
func TestNotAnEventStream(t *testing.T) {
	f := newFakeSM(t, false)
	f.on("sse", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ <-chan struct{}) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(vllmChatSSE(streamSpec{tokens: []string{"a"}, finish: "stop", usage: true, done: true}))
	})
	b := newTestBackend(t, f, "sse", FormatOpenAIChat)
	resp := send(t, b, context.Background())
	if resp.ErrClass != record.ErrMalformedStream || !strings.Contains(resp.Err.Error(), "--endpoint-url") {
		t.Errorf("class %q err %v", resp.ErrClass, resp.Err)
	}
}
