package openai

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestPreconnect: n connections are opened at once and stay in the pool,
// so a second call (the run) opens none; the models list is what is asked.
func TestPreconnect(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	var path atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.Path)
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/v1/chat/completions", API: Chat})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 2000 // more than the uncapped idle pool of 1024
	held, err := c.Preconnect(t.Context(), n)
	if err != nil || held != n || conns.Load() != n {
		t.Fatalf("held %d, server saw %d connections, err %v; want %d", held, conns.Load(), err, n)
	}
	if p := path.Load(); p != "/v1/models" {
		t.Errorf("asked for %v, want /v1/models", p)
	}
	if held, err = c.Preconnect(t.Context(), n); err != nil || held != n || conns.Load() != n {
		t.Errorf("second call: held %d, server saw %d connections in all (%v); want the pool reused", held, conns.Load(), err)
	}
}
