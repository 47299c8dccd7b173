package openai

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
		if resp.Err != nil || resp.Chunks.Len() != 100 {
			b.Fatalf("%v, %d chunks", resp.Err, resp.Chunks.Len())
		}
	}
}

// BenchmarkBuildBody is the per-request body encoding.
func BenchmarkBuildBody(b *testing.B) {
	req := &backend.Request{Model: "m", Prompt: strings.Repeat("hello ", 256), MaxTokens: 100, IgnoreEOS: true,
		ExtraBody: map[string]any{"temperature": 0.0}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildBody(Completions, nil, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStampLag measures how late the client stamps chunks: a loopback
// server notes time.Now() just before writing each chunk (same process,
// same monotonic clock) and the benchmark reports the median and p99 of
// client stamp - server write, with 32 streams in flight. It bounds the
// measurement error the client adds on this machine (scheduling included).
func BenchmarkStampLag(b *testing.B) {
	const streams, chunks = 32, 50
	var mu sync.Mutex
	written := map[string][]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		id := r.Header.Get("X-Request-Id")
		w.Header().Set("Content-Type", "text/event-stream")
		ts := make([]time.Time, 0, chunks)
		for i := range chunks {
			time.Sleep(time.Millisecond)
			ts = append(ts, time.Now())
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"t%d\"}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
		mu.Lock()
		written[id] = ts
		mu.Unlock()
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/v1/completions", MaxConcurrency: streams})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var lags []time.Duration
	round := 0
	for b.Loop() {
		resps := make([]backend.Response, streams)
		var wg sync.WaitGroup
		for i := range streams {
			wg.Go(func() {
				c.Send(b.Context(), &backend.Request{ID: fmt.Sprintf("%d-%d", round, i), Model: "m"}, &resps[i])
			})
		}
		wg.Wait()
		for i, r := range resps {
			if r.Err != nil || r.Chunks.Len() != chunks {
				b.Fatalf("%v, %d chunks", r.Err, r.Chunks.Len())
			}
			mu.Lock()
			ts := written[fmt.Sprintf("%d-%d", round, i)]
			mu.Unlock()
			for k := range r.Chunks.Len() {
				lags = append(lags, r.Chunks.At(k).Sub(ts[k]))
			}
		}
		round++
	}
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds()), "p50-lag-µs")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds()), "p99-lag-µs")
}
