package openai

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
)

// BenchmarkSendLoopback is one whole request against a loopback server that
// answers with a 100-chunk completions stream, each chunk flushed on its
// own: the client's cost per request (body, headers, HTTP, parsing,
// stamping). The server's share is included; compare runs, not absolutes.
func BenchmarkSendLoopback(b *testing.B) {
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = fmt.Sprintf(" tok%d", i)
	}
	msgs := strings.SplitAfter(completionsSSE(texts, 100, true), "\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for _, m := range msgs {
			io.WriteString(w, m)
			f.Flush()
		}
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/v1/completions", MaxConcurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := &backend.Request{ID: "bench-0", Model: "m", Prompt: strings.Repeat("hello ", 256), MaxTokens: 100}
	b.ReportAllocs()
	for b.Loop() {
		resp := backend.Response{}
		c.Send(b.Context(), req, &resp)
		if resp.Err != nil || len(resp.ChunkTimes) != 100 {
			b.Fatalf("%v, %d chunks", resp.Err, len(resp.ChunkTimes))
		}
	}
}

// BenchmarkBuildBody is the per-request body encoding.
func BenchmarkBuildBody(b *testing.B) {
	req := &backend.Request{Model: "m", Prompt: strings.Repeat("hello ", 256), MaxTokens: 100, IgnoreEOS: true,
		ExtraBody: map[string]any{"temperature": 0.0}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildBody(Completions, nil, req); err != nil {
			b.Fatal(err)
		}
	}
}
