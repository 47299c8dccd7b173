package openai

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/stream"
	"github.com/llmbench/llmbench/internal/heapwatch"
	"github.com/llmbench/llmbench/internal/record"
)

// endlessServer streams token chunks (or, with noNewline, one line that
// never ends) as fast as it can until the client goes away.
func endlessServer(t testing.TB, noNewline bool) *httptest.Server {
	chunk := []byte(strings.Repeat(`data: {"choices":[{"index":0,"text":"lorem ipsum ","finish_reason":null}]}`+"\n\n", 64))
	if noNewline {
		chunk = bytes.Repeat([]byte("x"), 32<<10)
	}
	srv := httptest.NewServer(drained(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if noNewline {
			w.Write([]byte("data: "))
		}
		f := w.(http.Flusher)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			f.Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSendEndlessStream: a server that streams forever no longer grows
// memory until --request-timeout: the response ends as response_too_large
// once it holds its cap, with the chunk times measured until then kept.
func TestSendEndlessStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		noNewline bool
		chunks    bool // token chunks arrived before the cap
	}{
		{"token chunks forever", false, true},
		{"one line that never ends", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const limit = 1 << 20
			c := newClient(t, endlessServer(t, tc.noNewline), Config{MaxResponseBytes: limit})
			resp := send(t, c, backend.Request{Model: "m", Prompt: "p", MaxTokens: 10})
			if resp.ErrClass != record.ErrResponseTooLarge || !errors.Is(resp.Err, stream.ErrResponseTooLarge) {
				t.Fatalf("class %q, err %v; want response_too_large", resp.ErrClass, resp.Err)
			}
			if held := len(resp.Text) + stream.ChunkStampBytes*resp.Chunks.Len(); held > limit {
				t.Errorf("response holds %d bytes, more than the cap %d", held, limit)
			}
			if got := resp.Chunks.Len() > 0; got != tc.chunks {
				t.Errorf("%d chunk times kept", resp.Chunks.Len())
			}
			if tc.chunks && resp.Start.IsZero() {
				t.Error("no start time: TTFT would be lost")
			}
			if c.budget.Used() != 0 {
				t.Errorf("%d bytes of the shared budget still reserved after Send", c.budget.Used())
			}
		})
	}
}

// TestSendEndlessStreamsSharedBudget: many endless streams together stay
// under the total cap, though each alone would be allowed more.
func TestSendEndlessStreamsSharedBudget(t *testing.T) {
	t.Parallel()
	const total = 1 << 20
	c := newClient(t, endlessServer(t, false), Config{MaxResponseBytes: 16 << 20, MaxTotalResponseBytes: total})
	var wg sync.WaitGroup
	resps := make([]backend.Response, 8)
	for i := range resps {
		wg.Go(func() {
			c.Send(context.Background(), &backend.Request{Model: "m", Prompt: "p"}, &resps[i])
		})
	}
	wg.Wait()
	for i, r := range resps {
		// Each stream may hold 16 MiB alone; the shared 1 MiB stops it.
		if r.ErrClass != record.ErrResponseTooLarge || !strings.Contains(r.Err.Error(), "together") {
			t.Errorf("stream %d: class %q (%v), want the shared cap's response_too_large", i, r.ErrClass, r.Err)
		}
		if held := len(r.Text) + stream.ChunkStampBytes*r.Chunks.Len(); held > total {
			t.Errorf("stream %d held %d bytes, more than the shared cap %d", i, held, total)
		}
	}
	if c.budget.Used() != 0 {
		t.Errorf("%d bytes still reserved", c.budget.Used())
	}
}

// BenchmarkEndlessStream is one request against a loopback server that
// streams token chunks forever, ended by the default cap
// (stream.DefaultMaxResponseBytes): B/op is the memory one such stream
// allocates in all, the bound the README states.
func BenchmarkEndlessStream(b *testing.B) {
	c, err := New(Config{URL: endlessServer(b, false).URL + "/v1/completions", MaxConcurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	stop := heapwatch.Start()
	for b.Loop() {
		resp := backend.Response{}
		c.Send(b.Context(), &backend.Request{Model: "m", Prompt: "p", MaxTokens: 10}, &resp)
		if resp.ErrClass != record.ErrResponseTooLarge {
			b.Fatalf("%q %v", resp.ErrClass, resp.Err)
		}
	}
	peak, _ := stop()
	b.ReportMetric(float64(peak), "peak-heap-B")
}
