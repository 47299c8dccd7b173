package stream

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// result is what a Collector made of a stream.
type result struct {
	Chunks       int
	Text         string
	FinishReason string
	Prompt, Comp int // -1 = nil
	Class        string
}

func summarize(r *backend.Response) result {
	out := result{Chunks: r.Chunks.Len(), Text: r.Text, FinishReason: r.FinishReason, Prompt: -1, Comp: -1, Class: r.ErrClass}
	if r.PromptTokens != nil {
		out.Prompt = *r.PromptTokens
	}
	if r.CompletionTokens != nil {
		out.Comp = *r.CompletionTokens
	}
	return out
}

// collect feeds data in the given piece sizes (cycled); feed k is stamped
// t0 + k seconds. It returns the response and the stamp of every chunk.
func collect(data []byte, sizes []int, framing Framing, mode Mode) *backend.Response {
	resp := &backend.Response{}
	c := Collector{Resp: resp}
	c.Parser.Framing, c.Parser.Decoder.Mode = framing, mode
	k := 0
	for len(data) > 0 {
		n := min(sizes[k%len(sizes)], len(data))
		if err := c.Feed(data[:n], t0.Add(time.Duration(k)*time.Second)); err != nil {
			return resp
		}
		data = data[n:]
		k++
	}
	c.Finish(t0.Add(time.Duration(k) * time.Second))
	return resp
}

// lineEnds returns, for every token-chunk line of data, the offset of the
// newline that ends it (found by parsing whole lines on their own).
func lineEnds(t *testing.T, data []byte, framing Framing) []int {
	t.Helper()
	var ends []int
	off := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		off += len(line)
		p := Parser{Framing: framing}
		_ = p.Feed(line, t0, HandlerFunc(func(e *Event) error {
			if e.Kind == KindToken {
				ends = append(ends, off-1)
			}
			return nil
		}))
	}
	return ends
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParserFixturesAnySplit feeds each wire fixture in pieces of every
// size from 1 byte up, and in random pieces, and checks that the outcome
// never depends on the split and that every token chunk carries the stamp
// of the feed that delivered its final newline.
func TestParserFixturesAnySplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		framing Framing
		mode    Mode
		want    result
	}{
		{"vllm_chat.sse", FramingSSE, ModeChat, result{
			Chunks: 8, Text: "Hello wörld! 世界 🚀\n\"quoted\"\\\t end", FinishReason: "length", Prompt: 17, Comp: 8}},
		{"vllm_completions.sse", FramingSSE, ModeCompletions, result{
			Chunks: 5, Text: " The café 🚀 end", FinishReason: "length", Prompt: 5, Comp: 5}},
		{"awkward.sse", FramingSSE, ModeAuto, result{
			Chunks: 3, Text: "Aé🚀", FinishReason: "stop", Prompt: 2, Comp: 3}},
		{"lmi_openai.jsonl", FramingJSONLines, ModeChat, result{
			Chunks: 2, Text: "xy", FinishReason: "length", Prompt: -1, Comp: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, tt.file)
			ends := lineEnds(t, data, tt.framing)
			if len(ends) != tt.want.Chunks {
				t.Fatalf("fixture has %d token lines, table says %d", len(ends), tt.want.Chunks)
			}
			check := func(desc string, sizes []int) {
				resp := collect(data, sizes, tt.framing, tt.mode)
				if got := summarize(resp); got != tt.want {
					t.Fatalf("%s: got %+v (err %v), want %+v", desc, got, resp.Err, tt.want)
				}
				// Expected stamp: index of the feed containing the newline.
				var want []time.Time
				for _, end := range ends {
					k, off := 0, 0
					for off+min(sizes[k%len(sizes)], len(data)-off) <= end {
						off += sizes[k%len(sizes)]
						k++
					}
					want = append(want, t0.Add(time.Duration(k)*time.Second))
				}
				if got := resp.Chunks.Times(); !slices.EqualFunc(got, want, time.Time.Equal) {
					t.Fatalf("%s: chunk stamps %v, want %v", desc, got, want)
				}
			}
			for n := 1; n <= len(data); n++ {
				check(fmt.Sprintf("pieces of %d bytes", n), []int{n})
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 200 {
				sizes := make([]int, 1+rng.IntN(20))
				for i := range sizes {
					sizes[i] = 1 + rng.IntN(40)
				}
				check(fmt.Sprintf("pieces %v", sizes), sizes)
			}
		})
	}
}

// TestCollectorOutcomes covers how a stream's end decides success.
func TestCollectorOutcomes(t *testing.T) {
	t.Parallel()
	tok := `data: {"choices":[{"text":"a","finish_reason":null}]}` + "\n\n"
	fin := `data: {"choices":[{"text":"b","finish_reason":"length"}]}` + "\n\n"
	usage := `data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2}}` + "\n\n"
	done := "data: [DONE]\n\n"
	tests := []struct {
		why     string
		framing Framing
		in      string
		want    result
	}{
		{"[DONE] without usage is success; no token count", FramingSSE, tok + fin + done,
			result{Chunks: 2, Text: "ab", FinishReason: "length", Prompt: -1, Comp: -1}},
		{"usage frame then EOF without [DONE] is success", FramingSSE, tok + fin + usage,
			result{Chunks: 2, Text: "ab", FinishReason: "length", Prompt: 4, Comp: 2}},
		{"a usage frame ends the stream only when no token chunk follows it", FramingSSE, tok + usage + fin,
			result{Chunks: 2, Text: "ab", FinishReason: "length", Prompt: 4, Comp: 2, Class: record.ErrStreamTruncated}},
		{"EOF after a token chunk is truncated", FramingSSE, tok,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: -1, Class: record.ErrStreamTruncated}},
		{"finish_reason does not end an SSE stream", FramingSSE, tok + fin,
			result{Chunks: 2, Text: "ab", FinishReason: "length", Prompt: -1, Comp: -1, Class: record.ErrStreamTruncated}},
		{"finish_reason ends a JSON-lines stream", FramingJSONLines,
			`{"choices":[{"text":"a","finish_reason":"stop"}]}` + "\n",
			result{Chunks: 1, Text: "a", FinishReason: "stop", Prompt: -1, Comp: -1}},
		{"cut inside a message is truncated", FramingSSE, tok + `data: {"choices":[{"te`,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: -1, Class: record.ErrStreamTruncated}},
		{"final message without newline still counts", FramingSSE, tok + fin + `data: [DONE]`,
			result{Chunks: 2, Text: "ab", FinishReason: "length", Prompt: -1, Comp: -1}},
		{"[DONE] without token chunks is no content", FramingSSE, usage + done,
			result{Prompt: 4, Comp: 2, Class: record.ErrNoContent}},
		{"empty body is truncated", FramingSSE, "", result{Prompt: -1, Comp: -1, Class: record.ErrStreamTruncated}},
		{"bad JSON is malformed; earlier chunks are kept", FramingSSE, tok + "data: {oops}\n\n" + done,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: -1, Class: record.ErrMalformedStream}},
		{"unknown SSE line is malformed", FramingSSE, "<html>\n",
			result{Prompt: -1, Comp: -1, Class: record.ErrMalformedStream}},
		{"usage inside a token chunk is ignored", FramingSSE,
			`data: {"choices":[{"text":"a"}],"usage":{"prompt_tokens":9,"completion_tokens":9}}` + "\n\n" + done,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: -1}},
		{"empty-text chunks are token chunks", FramingSSE,
			`data: {"choices":[{"text":""}]}` + "\n\n" + `data: {"choices":[{"text":null}]}` + "\n\n" + done,
			result{Chunks: 2, Prompt: -1, Comp: -1}},
		{"an error object mid-stream fails the request, even with [DONE] after it", FramingSSE,
			tok + `data: {"error":{"message":"engine died","type":"InternalServerError","code":500}}` + "\n\n" + done,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: -1, Class: ClassServerError}},
		{"an old-style error object mid-stream fails the request", FramingSSE,
			tok + `data: {"object":"error","message":"engine died"}` + "\n\n" + usage + done,
			result{Chunks: 1, Text: "a", Prompt: 4, Comp: 2, Class: ClassServerError}},
		{"SSE fields are skipped in JSON-lines framing too (an SSE stream read with it)", FramingJSONLines,
			"event: message\nid: 1\n" + `data: {"choices":[{"text":"a","finish_reason":"stop"}]}` + "\n\n",
			result{Chunks: 1, Text: "a", FinishReason: "stop", Prompt: -1, Comp: -1}},
		{"finish_reason error fails the request", FramingJSONLines,
			`{"choices":[{"text":"a","finish_reason":"error"}]}` + "\n",
			result{Chunks: 1, Text: "a", FinishReason: "error", Prompt: -1, Comp: -1, Class: ClassServerError}},
		{"a null error field is not an error", FramingSSE,
			`data: {"choices":[{"text":"a"}],"error":null}` + "\n\n" + `data: {"choices":[],"error":null,"usage":{"completion_tokens":1}}` + "\n\n" + done,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: 1}},
		{"a message with empty choices and no usage is ignored", FramingSSE,
			`data: {"choices":[]}` + "\n\n" + tok + done,
			result{Chunks: 1, Text: "a", Prompt: -1, Comp: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			for n := 1; n <= len(tt.in)+1; n++ {
				resp := collect([]byte(tt.in), []int{n}, tt.framing, ModeAuto)
				if got := summarize(resp); got != tt.want {
					t.Fatalf("pieces of %d: got %+v (err %v), want %+v", n, got, resp.Err, tt.want)
				}
				if (resp.Err != nil) != (tt.want.Class != "") {
					t.Fatalf("Err %v with class %q", resp.Err, resp.ErrClass)
				}
			}
		})
	}
}

func TestCollectorNoContentMessage(t *testing.T) {
	t.Parallel()
	resp := collect([]byte("data: [DONE]\n\n"), []int{100}, FramingSSE, ModeAuto)
	if resp.Err == nil || resp.Err.Error() != NoContentMessage {
		t.Fatalf("got %v, want vLLM's message", resp.Err)
	}
	in := `data: {"object":"error","message":"KV cache full"}` + "\n\ndata: [DONE]\n\n"
	resp = collect([]byte(in), []int{100}, FramingSSE, ModeAuto)
	if resp.Err == nil || !bytes.Contains([]byte(resp.Err.Error()), []byte("KV cache full")) {
		t.Fatalf("got %v, want the server's error message included", resp.Err)
	}
}

func TestCollectorFailKeepsFirstError(t *testing.T) {
	t.Parallel()
	resp := &backend.Response{}
	c := Collector{Resp: resp}
	if err := c.Feed([]byte("data: {\"choices\":[{\"text\":\"x\"}]}\n"), t0); err != nil {
		t.Fatal(err)
	}
	first := errors.New("reset")
	c.Fail(record.ErrConnection, first)
	c.Fail(record.ErrTimeout, errors.New("later"))
	if resp.Err != first || resp.ErrClass != record.ErrConnection || resp.Text != "x" || resp.Chunks.Len() != 1 {
		t.Fatalf("got %+v", summarize(resp))
	}
	if err := c.Finish(t0); err != first {
		t.Fatalf("Finish after Fail = %v", err)
	}
}

// TestCollectorStoresTwice: chunks that arrive after a store (a Fail, then
// more bytes) join the ones already handed over, at their own times, and
// their text follows the text stored first.
func TestCollectorStoresTwice(t *testing.T) {
	t.Parallel()
	resp := &backend.Response{}
	c := Collector{Resp: resp}
	chunk := func(text string, at time.Duration) {
		t.Helper()
		if err := c.Feed([]byte(`data: {"choices":[{"text":"`+text+`"}]}`+"\n\n"), t0.Add(at)); err != nil {
			t.Fatal(err)
		}
	}
	chunk("a", time.Second)
	chunk("b", 2*time.Second)
	c.Fail(record.ErrConnection, errors.New("cut"))
	chunk("c", 5*time.Second)
	c.Finish(t0.Add(6 * time.Second))
	want := []time.Time{t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(5 * time.Second)}
	if got := resp.Chunks.Times(); !slices.EqualFunc(got, want, time.Time.Equal) || resp.Text != "abc" {
		t.Fatalf("stamps %v, text %q; want %v, \"abc\"", got, resp.Text, want)
	}
	if g := resp.Chunks.Gap(2); g != 3*time.Second {
		t.Errorf("gap after the second store %v, want 3s", g)
	}
}

// FuzzParserSplit checks that any bytes, split anywhere, give the same
// events as the same bytes fed at once, and that the parser never panics.
func FuzzParserSplit(f *testing.F) {
	for _, name := range []string{"vllm_chat.sse", "vllm_completions.sse", "awkward.sse", "lmi_openai.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint64(7), false)
	}
	f.Add([]byte("data: {\"choices\":[{\"text\":\"\\ud83d\"}]}\r\n\r\n: x\r\ndata:[DONE]"), uint64(1), true)
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, jsonLines bool) {
		framing := FramingSSE
		if jsonLines {
			framing = FramingJSONLines
		}
		whole := collect(data, []int{len(data) + 1}, framing, ModeAuto)
		rng := rand.New(rand.NewPCG(seed, 0))
		sizes := make([]int, 1+rng.IntN(8))
		for i := range sizes {
			sizes[i] = 1 + rng.IntN(16)
		}
		split := collect(data, sizes, framing, ModeAuto)
		if a, b := summarize(whole), summarize(split); a != b {
			t.Fatalf("whole %+v (%v)\nsplit %v: %+v (%v)", a, whole.Err, sizes, b, split.Err)
		}
		// One feed per "\n\n"-ended piece: the parser's whole-event path.
		// The pieces cover data, so collect never cycles through them.
		var events []int
		for _, piece := range bytes.SplitAfter(data, []byte("\n\n")) {
			events = append(events, max(len(piece), 1))
		}
		byEvent := collect(data, events, framing, ModeAuto)
		if a, b := summarize(whole), summarize(byEvent); a != b {
			t.Fatalf("whole %+v (%v)\nby event %v: %+v (%v)", a, whole.Err, events, b, byEvent.Err)
		}
		if (whole.Err == nil) != (whole.ErrClass == "") {
			t.Fatalf("Err %v with class %q", whole.Err, whole.ErrClass)
		}
	})
}
