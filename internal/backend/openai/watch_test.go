package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// listCtx is a context whose dynamic type is not comparable: it cannot
// key the watch, so its requests take the per-request hook.
type listCtx struct {
	context.Context
	tags []string
}

// TestWatchBounds: on the raw path the watch ends a stalled request at
// its timeout and a cancelled one at once, under a context that keys it
// and under one that cannot, with the classes of a timeout and a cancel
// (h1's TestWatchDrains checks that the watch is left empty).
func TestWatchBounds(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(drained(func(w http.ResponseWriter, r *http.Request) {
		writeSplit(w, completionsSSE([]string{"a"}, -1, false), 100)
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newClient(t, srv, Config{Timeout: 300 * time.Millisecond})
	if !c.poster.Direct() {
		t.Fatal("no raw path for an http:// test server")
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		wantClass string
	}{
		{"timeout", t.Context(), record.ErrTimeout},
		{"timeout, uncomparable context", listCtx{t.Context(), []string{"x"}}, record.ErrTimeout},
		{"cancelled before", canceled, record.ErrCanceled},
	} {
		resp := &backend.Response{}
		start := time.Now()
		c.Send(tc.ctx, &backend.Request{Model: "m", Prompt: "p", MaxTokens: 2}, resp)
		if resp.ErrClass != tc.wantClass {
			t.Errorf("%s: class %q (%v), want %q", tc.name, resp.ErrClass, resp.Err, tc.wantClass)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
	}
}

// TestWatchCancelMidStream: cancelling the context of many streams ends
// each, with the class a cancel has.
func TestWatchCancelMidStream(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 8)
	srv := httptest.NewServer(drained(func(w http.ResponseWriter, r *http.Request) {
		writeSplit(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 100)
		started <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newClient(t, srv, Config{})
	ctx, cancel := context.WithCancel(t.Context())
	const n = 8
	done := make(chan *backend.Response, n)
	for range n {
		go func() {
			resp := &backend.Response{}
			c.Send(ctx, &backend.Request{Model: "m"}, resp)
			done <- resp
		}()
	}
	for range n {
		<-started
	}
	cancel()
	for range n {
		if resp := <-done; resp.ErrClass != record.ErrCanceled {
			t.Errorf("class %q (%v), want %q", resp.ErrClass, resp.Err, record.ErrCanceled)
		}
	}
}
