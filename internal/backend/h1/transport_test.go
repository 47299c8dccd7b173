package h1

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// netHTTP is a fallback transport as openai.NewTransport makes it for
// maxConns connections per host (0: no cap).
func netHTTP(maxConns int, insecure bool) *http.Transport {
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		MaxIdleConnsPerHost: 1024,
		MaxConnsPerHost:     maxConns,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: insecure}, //nolint:gosec // test servers
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableCompression:  true,
	}
}

// countConns makes srv count the connections it accepts.
func countConns(srv *httptest.Server) *atomic.Int64 {
	var n atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}

func directClient() (*http.Client, *Transport) {
	t := New(netHTTP(0, true), 8)
	return &http.Client{Transport: t}, t
}

func get(t *testing.T, c *http.Client, ctx context.Context, url string) (string, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"x":1}`))
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestDirectKeepsConnections: chunked, sized and empty answers read to
// the end leave their connection for the next request; one the server
// marks Connection: close does not.
func TestDirectKeepsConnections(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/chunked":
			for i := range 3 {
				fmt.Fprintf(w, "data: %d %s\n\n", i, body)
				w.(http.Flusher).Flush()
			}
		case "/sized":
			w.Header().Set("Content-Length", "2")
			_, _ = w.Write([]byte("ok"))
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("bye"))
		}
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	c, tr := directClient()
	defer tr.CloseIdleConnections()
	for _, p := range []string{"/chunked", "/sized", "/chunked", "/sized"} {
		got, err := get(t, c, t.Context(), srv.URL+p)
		if err != nil || got == "" {
			t.Fatalf("%s: %q %v", p, got, err)
		}
	}
	if got, _ := get(t, c, t.Context(), srv.URL+"/chunked"); got != "data: 0 {\"x\":1}\n\ndata: 1 {\"x\":1}\n\ndata: 2 {\"x\":1}\n\n" {
		t.Errorf("chunked body %q", got)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for five requests in a row, want 1", n)
	}
	_, _ = get(t, c, t.Context(), srv.URL+"/close")
	_, _ = get(t, c, t.Context(), srv.URL+"/sized")
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want a new one after Connection: close", n)
	}
}

// TestDirectRetriesStaleConnection: the server closed a kept connection
// while it was idle; the request goes once more on a new one.
func TestDirectRetriesStaleConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer c.Close() // one answer per connection, though it says keep-alive
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}()
		}
	}()
	c, tr := directClient()
	defer tr.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + "/"
	for i := range 3 {
		if got, err := get(t, c, t.Context(), url); err != nil || got != "ok" {
			t.Fatalf("request %d: %q %v", i, got, err)
		}
		time.Sleep(10 * time.Millisecond) // let the server's close arrive
	}
	if n := accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// TestDirectSkipsDeadIdleConnections: a kept connection the server
// half-closed while idle, or one holding bytes nobody asked for, is not
// reused: the request is written once, on a new connection (a write on
// the dead one would reach a server that still reads, and send the
// request twice).
func TestDirectSkipsDeadIdleConnections(t *testing.T) {
	if !canCheckIdle {
		t.Skip("NOT TESTED: this platform cannot look into an idle socket (connalive_other.go)")
	}
	t.Parallel()
	for _, tc := range []struct {
		name  string
		after func(c *net.TCPConn) // what the server does after its answer
	}{
		{"half-closed", func(c *net.TCPConn) { _ = c.CloseWrite() }},
		{"unasked bytes", func(c *net.TCPConn) { _, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var requests atomic.Int64
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						defer c.Close()
						br := bufio.NewReader(c)
						for answered := false; ; answered = true { // count every request; answer the first
							req, err := http.ReadRequest(br)
							if err != nil {
								return
							}
							_, _ = io.Copy(io.Discard, req.Body)
							if requests.Add(1); !answered {
								_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
								time.Sleep(5 * time.Millisecond)
								tc.after(c.(*net.TCPConn))
							}
						}
					}()
				}
			}()
			c, tr := directClient()
			defer tr.CloseIdleConnections()
			url := "http://" + ln.Addr().String() + "/"
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a reused dead connection never answers
			defer cancel()
			for i := range 3 {
				if got, err := get(t, c, ctx, url); err != nil || got != "ok" {
					t.Fatalf("request %d: %q %v", i, got, err)
				}
				time.Sleep(20 * time.Millisecond) // let the server's close or bytes arrive
			}
			if n := requests.Load(); n != 3 {
				t.Errorf("the server read %d requests for 3 sent, want 3 (none written on a dead connection)", n)
			}
		})
	}
}

// TestDirectCancel: cancelling the context mid-stream ends the body read
// at once with the context's error, not an i/o timeout.
func TestDirectCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "data: 1\n\n")
		w.(http.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	c, tr := directClient()
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	if n, err := resp.Body.Read(buf); err != nil || n == 0 {
		t.Fatalf("first read %d %v", n, err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}
}

// TestDirectFallback: https goes through net/http's transport.
func TestDirectFallback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "tls") }))
	defer srv.Close()
	fb := netHTTP(0, true)
	fb.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test server
	tr := New(fb, 8)
	defer tr.CloseIdleConnections()
	if got, err := get(t, &http.Client{Transport: tr}, t.Context(), srv.URL); err != nil || got != "tls" {
		t.Errorf("https: %q %v", got, err)
	}
}

// FuzzDirectResponse: whatever a server answers, the transport returns a
// response or an error, never panics or hangs, and keeps a connection
// only after a complete, well-framed answer.
func FuzzDirectResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.0 200 OK\r\n\r\nx",
		"HTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 100 Continue\r\n\r\n",
		"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\r\nok\r\n0\r\n\r\n",
		"garbage",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		tr := New(netHTTP(0, false), 4)
		tr.dial = func(context.Context, string, string) (net.Conn, error) {
			client, srv := net.Pipe()
			go func() {
				_, _ = http.ReadRequest(bufio.NewReader(srv))
				_, _ = srv.Write(answer)
				_ = srv.Close()
			}()
			return client, nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://fuzz.invalid/v1/completions", strings.NewReader("{}"))
		resp, err := tr.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			t.Fatalf("hung on %q", answer)
		}
		tr.CloseIdleConnections()
	})
}

// TestDirectCloseEarly: closing a body before its end (an endless stream,
// an error answer read in part) closes the connection at once instead of
// draining it, and the next request opens a new one.
func TestDirectCloseEarly(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, "data: more\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	c, tr := directClient()
	defer tr.CloseIdleConnections()
	for range 2 {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		if err := resp.Body.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (a body closed early is not reused)", n)
	}
}

// flakyConn fails its second Write after taking the first take bytes of
// it (take < 0: never fails).
type flakyConn struct {
	net.Conn
	take, calls int
}

func (c *flakyConn) Write(p []byte) (int, error) {
	if c.calls++; c.calls == 2 && c.take >= 0 {
		k := min(c.take, len(p))
		n, _ := c.Conn.Write(p[:k])
		return n, syscall.EPIPE
	}
	return c.Conn.Write(p)
}

// TestDirectRetriesOnlyUnwritten: a request whose write on a kept
// connection failed before any byte left goes once more on a new
// connection; one whose write failed after some bytes may have reached
// the server and fails (a POST is sent at most once).
func TestDirectRetriesOnlyUnwritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		take          int
		wantErr       bool
		dials, served int64
	}{
		{"nothing written", 0, false, 2, 2},
		{"part written", 10, true, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var dials, served atomic.Int64
			tr := New(netHTTP(0, false), 4)
			defer tr.CloseIdleConnections()
			tr.dial = func(context.Context, string, string) (net.Conn, error) {
				client, srv := net.Pipe()
				take := -1
				if dials.Add(1) == 1 {
					take = tc.take
				}
				go func() {
					defer srv.Close()
					br := bufio.NewReader(srv)
					for {
						req, err := http.ReadRequest(br)
						if err != nil {
							return
						}
						if _, err := io.Copy(io.Discard, req.Body); err != nil {
							return
						}
						served.Add(1)
						if _, err := io.WriteString(srv, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
							return
						}
					}
				}()
				return &flakyConn{Conn: client, take: take}, nil
			}
			c := &http.Client{Transport: tr}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if got, err := get(t, c, ctx, "http://fake.invalid/"); err != nil || got != "ok" {
				t.Fatalf("first request: %q %v", got, err)
			}
			got, err := get(t, c, ctx, "http://fake.invalid/")
			if (err != nil) != tc.wantErr || (err == nil && got != "ok") {
				t.Errorf("second request: %q %v, want an error: %v", got, err, tc.wantErr)
			}
			if dials.Load() != tc.dials || served.Load() != tc.served {
				t.Errorf("%d dials, %d requests read by the server; want %d, %d", dials.Load(), served.Load(), tc.dials, tc.served)
			}
		})
	}
}
