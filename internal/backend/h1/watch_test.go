package h1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestWatchDrains: Posts bounded by the watch end at their deadline or at
// once when their context is cancelled, and afterwards the watch holds no
// exchange and no context and its ticker has stopped.
func TestWatchDrains(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "data: {}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	tr := New(netHTTP(0, false), 4)
	defer tr.CloseIdleConnections()
	const timeout = 300 * time.Millisecond
	p, err := NewPoster(&http.Client{Transport: tr}, srv.URL+"/v1/completions", http.Header{"Content-Type": {"application/json"}}, timeout)
	if err != nil || !p.Direct() {
		t.Fatalf("no direct Poster for an http:// test server (%v)", err)
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"deadline", t.Context(), context.DeadlineExceeded},
		{"cancelled before", canceled, context.Canceled},
	} {
		var start time.Time
		ex, err := p.Post(tc.ctx, []byte(`{}`), "id-1", &start)
		if err == nil {
			_, err = io.ReadAll(ex.Resp.Body)
		}
		ex.Close()
		if start.IsZero() {
			t.Errorf("%s: start not stamped", tc.name)
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	w := &tr.watch
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		stopped := w.tick == 0
		w.mu.Unlock()
		if stopped {
			break
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.bodies) != 0 || len(w.ctxs) != 0 || w.tick != 0 {
		t.Errorf("after the requests: %d exchanges, %d contexts watched, tick %v; want none", len(w.bodies), len(w.ctxs), w.tick)
	}
}

// TestPreconnectRefused: dials that fail are reported and give their
// places back, so a capped pool is not left full of connections that
// never opened.
func TestPreconnectRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	tr := New(netHTTP(4, false), 4)
	defer tr.CloseIdleConnections()
	probe, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/v1/models", nil)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := tr.Preconnect(t.Context(), probe, 10)
	if err == nil || idle != 0 {
		t.Fatalf("idle %d, err %v; want 0 and the dial's error", idle, err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.open[addr] != 0 {
		t.Errorf("%d places still taken after failed dials, want 0", tr.open[addr])
	}
}

// TestPreconnectOnlyServed: a probe the transport would hand to its
// fallback (https) opens nothing and says so.
func TestPreconnectOnlyServed(t *testing.T) {
	tr := New(netHTTP(0, false), 4)
	probe, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://127.0.0.1:1/v1/models", nil)
	if err != nil {
		t.Fatal(err)
	}
	if idle, err := tr.Preconnect(t.Context(), probe, 2); err == nil || idle != 0 {
		t.Errorf("idle %d, err %v; want 0 and an error", idle, err)
	}
}
