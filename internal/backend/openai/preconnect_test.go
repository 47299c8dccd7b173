package openai

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestPreconnect: n connections are opened at once and stay in the pool,
// so a second call (the run) opens none; each carries one request for the
// models list, on the direct transport (as bytes) and over TLS (through
// net/http).
func TestPreconnect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		tls      bool
		wantPath string
	}{
		{name: "direct", wantPath: "/v1/models"},
		{name: "tls", tls: true, wantPath: "/v1/models"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var conns, asked atomic.Int64
			var path atomic.Value
			path.Store("")
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				path.Store(r.URL.Path)
				_, _ = w.Write([]byte(`{"data":[]}`))
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshakes cut short at the end
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			c, err := New(Config{URL: srv.URL + "/v1/chat/completions", API: Chat, Insecure: tc.tls})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			n := 2000 // more than the uncapped idle pool of 1024
			if tc.tls {
				n = 200 // TLS handshakes are slow under -race
			}
			held, err := c.Preconnect(t.Context(), n)
			// The server counts a connection when its accept returns,
			// which may come after the client's dial did.
			waitFor(t, func() bool { return conns.Load() >= int64(n) })
			if err != nil || held != n || conns.Load() != int64(n) {
				t.Fatalf("held %d, server saw %d connections, err %v; want %d", held, conns.Load(), err, n)
			}
			if p := path.Load(); p != tc.wantPath {
				t.Errorf("asked for %q, want %q", p, tc.wantPath)
			}
			if asked.Load() != int64(n) {
				t.Errorf("%d requests before the run, want one per connection (%d)", asked.Load(), n)
			}
			if held, err = c.Preconnect(t.Context(), n); err != nil || held != n || conns.Load() != int64(n) {
				t.Errorf("second call: held %d, server saw %d connections in all (%v); want the pool reused", held, conns.Load(), err)
			}
		})
	}
}

// waitFor polls ok for up to 10 s.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPreconnectRefused: dials that fail are reported (h1's
// TestPreconnectRefused checks that they give their places back).
func TestPreconnectRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := New(Config{URL: "http://" + addr + "/v1/completions", MaxConcurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held, err := c.Preconnect(t.Context(), 10)
	if err == nil || held != 0 {
		t.Fatalf("held %d, err %v; want 0 and the dial's error", held, err)
	}
}
