package openai

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// completionsSSE renders a vLLM completions stream of the given texts,
// with a usage frame when usage >= 0, and [DONE] when done.
func completionsSSE(texts []string, usage int, done bool) string {
	var b strings.Builder
	for i, t := range texts {
		fr := "null"
		if i == len(texts)-1 {
			fr = `"length"`
		}
		fmt.Fprintf(&b, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%q,\"logprobs\":null,\"finish_reason\":%s}],\"usage\":null}\n\n", t, fr)
	}
	if usage >= 0 {
		fmt.Fprintf(&b, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", 7+usage, usage)
	}
	if done {
		b.WriteString("data: [DONE]\n\n")
	}
	return b.String()
}

// drained wraps h so that it reads the request body first: only then does
// net/http watch the connection and cancel r.Context() when the client
// goes away (handlers below wait on it).
func drained(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h(w, r)
	}
}

// writeSplit writes s in pieces of n bytes, flushing after each.
func writeSplit(w http.ResponseWriter, s string, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for len(s) > 0 {
		k := min(n, len(s))
		if _, err := io.WriteString(w, s[:k]); err != nil {
			return
		}
		f.Flush()
		s = s[k:]
	}
}

func newClient(t *testing.T, srv *httptest.Server, cfg Config) *Client {
	t.Helper()
	if cfg.URL == "" {
		cfg.URL = srv.URL + "/v1/completions"
		if cfg.API == Chat {
			cfg.URL = srv.URL + "/v1/chat/completions"
		}
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func send(t *testing.T, c *Client, req backend.Request) *backend.Response {
	t.Helper()
	resp := &backend.Response{}
	c.Send(t.Context(), &req, resp)
	return resp
}

// TestSendAwkwardStreams checks token totals and text over streams written
// in awkward pieces, with and without usage frames.
func TestSendAwkwardStreams(t *testing.T) {
	t.Parallel()
	texts := []string{"Hello", " wörld", "", " 世界🚀", "!"}
	chat := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n" +
		": ping\r\n\r\n" +
		"event: message\r\nid: 1\r\ndata:{\"choices\":[{\"delta\":{\"content\":\"é\"}}]}\r\n\r\n" +
		"data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"},\"finish_reason\":null}]}\r\n\r\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"🚀\"},\"finish_reason\":\"stop\"}]}\r\n\r\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\r\n\r\n" +
		"data: [DONE]\r\n\r\n"
	tests := []struct {
		why        string
		api        API
		body       string
		piece      int
		wantChunks int
		wantText   string
		wantComp   int // -1: no usage
		wantFinish string
	}{
		{"usage + [DONE], 1-byte writes", Completions, completionsSSE(texts, 5, true), 1, 5, "Hello wörld 世界🚀!", 5, "length"},
		{"usage + [DONE], 7-byte writes", Completions, completionsSSE(texts, 5, true), 7, 5, "Hello wörld 世界🚀!", 5, "length"},
		{"no usage frame, [DONE] only", Completions, completionsSSE(texts, -1, true), 3, 5, "Hello wörld 世界🚀!", -1, "length"},
		{"usage then EOF without [DONE]", Completions, completionsSSE(texts, 5, false), 64, 5, "Hello wörld 世界🚀!", 5, "length"},
		{"chat with CRLF, comments, data: without space, reasoning chunk", Chat, chat, 1, 4, "é🚀", 4, "stop"},
		{"chat in one write", Chat, chat, 1 << 20, 4, "é🚀", 4, "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeSplit(w, tt.body, tt.piece)
			}))
			defer srv.Close()
			c := newClient(t, srv, Config{API: tt.api})
			resp := send(t, c, backend.Request{Model: "m", Prompt: "p", MaxTokens: 5})
			if resp.Err != nil {
				t.Fatalf("Send: %v (%s)", resp.Err, resp.ErrClass)
			}
			if resp.Chunks.Len() != tt.wantChunks || resp.Text != tt.wantText || resp.FinishReason != tt.wantFinish {
				t.Fatalf("got %d chunks, text %q, finish %q; want %d, %q, %q",
					resp.Chunks.Len(), resp.Text, resp.FinishReason, tt.wantChunks, tt.wantText, tt.wantFinish)
			}
			got := -1
			if resp.CompletionTokens != nil {
				got = *resp.CompletionTokens
			}
			if got != tt.wantComp {
				t.Fatalf("completion tokens %d, want %d", got, tt.wantComp)
			}
			if resp.HTTPStatus != 200 || resp.ErrClass != "" {
				t.Fatalf("status %d class %q", resp.HTTPStatus, resp.ErrClass)
			}
		})
	}
}

// TestSendTiming checks stamps against ground truth taken in the server
// (same process, same monotonic clock): each message is written in two
// pieces with a pause between, and a chunk's stamp must never precede the
// write of the piece that completed it (a stamp taken at the first piece, or
// at the start of the request, would). Upper bounds are left loose: on a
// loaded machine the client may be scheduled late.
func TestSendTiming(t *testing.T) {
	t.Parallel()
	const pause = 20 * time.Millisecond
	// The last chunk is held back this long: a client that stamps on
	// arrival has stamped the first chunk long before, one that buffers
	// the body stamps everything after it. Long enough that no scheduling
	// delay on a busy machine blurs the two.
	const holdLast = time.Second
	body := completionsSSE([]string{"a", "b", "c"}, 3, true)
	msgs := strings.SplitAfter(body, "\n\n")
	var completed []time.Time // when the write completing message i began
	srv := httptest.NewServer(drained(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for i, m := range msgs[:3] {
			time.Sleep(pause)
			io.WriteString(w, m[:10])
			w.(http.Flusher).Flush()
			time.Sleep(pause)
			if i == 2 {
				time.Sleep(holdLast)
			}
			completed = append(completed, time.Now())
			io.WriteString(w, m[10:])
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, strings.Join(msgs[3:], ""))
	}))
	defer srv.Close()
	c := newClient(t, srv, Config{})
	resp := send(t, c, backend.Request{Model: "m", Prompt: "p", MaxTokens: 3})
	if resp.Err != nil || resp.Chunks.Len() != 3 {
		t.Fatalf("err %v, %d chunks", resp.Err, resp.Chunks.Len())
	}
	// Causality: no chunk is stamped before the write that completed it
	// began (the handler finished before the body's end reached the
	// client, so completed is safe to read).
	for i, stamp := range resp.Chunks.Times() {
		if stamp.Before(completed[i]) {
			t.Errorf("chunk %d stamped %v before its last byte was written", i, completed[i].Sub(stamp))
		}
	}
	if ttft := resp.Chunks.At(0).Sub(resp.Start); ttft < 2*pause {
		t.Errorf("ttft %v shorter than the server's %v before the first chunk was complete", ttft, 2*pause)
	}
	// The bounds above also hold for a client that buffers the whole body
	// and stamps afterwards; this one does not: the first chunk is stamped
	// before the last one is even written.
	if first, last := resp.Chunks.At(0), completed[2]; !first.Before(last) {
		t.Errorf("first chunk stamped %v after the last chunk's write began: chunks stamped after buffering, not on arrival", first.Sub(last))
	}
}

// TestSendErrors covers every error class.
func TestSendErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 500)
	hijackCut := func(w http.ResponseWriter, r *http.Request) {
		// A chunked response cut without its terminating chunk.
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		m := "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(m), m)
		buf.Flush()
	}
	tests := []struct {
		why       string
		handler   http.HandlerFunc
		timeout   time.Duration
		wantClass string
		wantMsg   string // substring of the error
		wantText  string
	}{
		{"400 with body excerpt", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"max_tokens too large"}}`, 400)
		}, 0, record.ErrHTTP4xx, `HTTP 400 Bad Request: {"error":{"message":"max_tokens too large"}}`, ""},
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(429)
		}, 0, record.ErrHTTP429, "HTTP 429 Too Many Requests", ""},
		{"503 with a long body cut at 200 bytes", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			io.WriteString(w, long)
		}, 0, record.ErrHTTP5xx, "HTTP 503 Service Unavailable: " + long[:200] + "...", ""},
		{"redirect is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere/completions", http.StatusTemporaryRedirect)
		}, 0, record.ErrOther, "HTTP 307 Temporary Redirect (redirect to /elsewhere/completions", ""},
		{"stall past the request timeout", func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 100)
			<-r.Context().Done()
		}, 700 * time.Millisecond, record.ErrTimeout, "timed out", "a"},
		{"timeout before headers", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, 100 * time.Millisecond, record.ErrTimeout, "sending request", ""},
		{"connection cut mid-stream", hijackCut, 0, record.ErrStreamTruncated, "connection closed mid-stream", "a"},
		{"clean EOF without [DONE] or usage", func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, completionsSSE([]string{"a", "b"}, -1, false), 5)
		}, 0, record.ErrStreamTruncated, "after 2 token chunks without [DONE]", "ab"},
		{"malformed JSON", func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":tru}]}\n\n", 4)
		}, 0, record.ErrMalformedStream, "malformed stream", "a"},
		{"error object mid-stream, then [DONE]", func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"+
				"data: {\"error\":{\"message\":\"engine died\",\"type\":\"InternalServerError\",\"code\":500}}\n\n"+
				"data: [DONE]\n\n", 9)
		}, 0, "server_error", "after 1 token chunks: engine died", "a"},
		{"[DONE] without a token chunk", func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, completionsSSE(nil, 0, true), 5)
		}, 0, record.ErrNoContent, "Never received a valid chunk", ""},
		{"hijack and close before any response", func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, 0, record.ErrConnection, "sending request", ""},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(drained(tt.handler))
			defer srv.Close()
			c := newClient(t, srv, Config{Timeout: tt.timeout})
			resp := send(t, c, backend.Request{Model: "m", Prompt: "p", MaxTokens: 2})
			if resp.Err == nil {
				t.Fatalf("success, want %s", tt.wantClass)
			}
			if resp.ErrClass != tt.wantClass || !strings.Contains(resp.Err.Error(), tt.wantMsg) {
				t.Fatalf("got class %q err %q; want %q containing %q", resp.ErrClass, resp.Err, tt.wantClass, tt.wantMsg)
			}
			if resp.Text != tt.wantText {
				t.Fatalf("text %q, want %q (kept from before the failure)", resp.Text, tt.wantText)
			}
			t.Logf("%s: %v", resp.ErrClass, resp.Err)
		})
	}
}

func TestSendConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := New(Config{URL: "http://" + addr + "/v1/completions"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp := &backend.Response{}
	c.Send(t.Context(), &backend.Request{Model: "m"}, resp)
	if resp.ErrClass != record.ErrConnection || resp.HTTPStatus != 0 || resp.Start.IsZero() {
		t.Fatalf("got %q %v status %d", resp.ErrClass, resp.Err, resp.HTTPStatus)
	}
}

func TestSendCanceled(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	srv := httptest.NewServer(drained(func(w http.ResponseWriter, r *http.Request) {
		writeSplit(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 100)
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newClient(t, srv, Config{})
	ctx, cancel := context.WithCancel(t.Context())
	// Give the client time to read the chunk the server flushed (loopback:
	// microseconds) before canceling mid-stream.
	go func() { <-started; time.Sleep(100 * time.Millisecond); cancel() }()
	resp := &backend.Response{}
	c.Send(ctx, &backend.Request{Model: "m"}, resp)
	// Normally the chunk arrived before the cancel; a starved client may
	// not have read it yet, which changes nothing about the class.
	if resp.ErrClass != record.ErrCanceled || resp.Chunks.Len() > 1 {
		t.Fatalf("got %q %v with %d chunks", resp.ErrClass, resp.Err, resp.Chunks.Len())
	}
}

func TestSendHeadersAndBody(t *testing.T) {
	t.Parallel()
	type seen struct {
		h    http.Header
		body string
		path string
	}
	got := make(chan seen, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Header.Clone(), string(b), r.URL.Path}
		writeSplit(w, completionsSSE([]string{"a"}, 1, true), 1000)
	}))
	defer srv.Close()
	c := newClient(t, srv, Config{
		API:    Chat,
		APIKey: "sk-test",
		Headers: []Header{
			{"X-Custom", "1"}, {"x-request-id", "from-flag"}, {"Content-Type", "application/json; charset=utf-8"},
		},
	})
	resp := send(t, c, backend.Request{ID: "bench-abc-0", Model: "m", Prompt: "hi", MaxTokens: 3})
	if resp.Err != nil {
		t.Fatal(resp.Err)
	}
	s := <-got
	for k, want := range map[string]string{
		"Authorization": "Bearer sk-test",
		"X-Custom":      "1",
		"X-Request-Id":  "bench-abc-0",
		"Content-Type":  "application/json; charset=utf-8", // --header wins, as in vLLM
	} {
		if v := s.h.Values(k); len(v) != 1 || v[0] != want {
			t.Errorf("header %s = %q, want [%q]", k, v, want)
		}
	}
	if s.path != "/v1/chat/completions" {
		t.Errorf("path %s", s.path)
	}
	want := `{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "max_completion_tokens": 3, "stream": true, "stream_options": {"include_usage": true}}`
	if s.body != want {
		t.Errorf("body\n got %s\nwant %s", s.body, want)
	}
	// Without an ID the extra header's value stays.
	send(t, c, backend.Request{Model: "m", Prompt: "hi", MaxTokens: 3})
	if s := <-got; s.h.Get("X-Request-Id") != "from-flag" {
		t.Errorf("x-request-id without ID = %q", s.h.Get("X-Request-Id"))
	}
	// The key never shows in a printed config.
	cfg := Config{APIKey: "sk-secret"}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if strings.Contains(fmt.Sprintf(f, cfg), "sk-secret") {
			t.Errorf("%s prints the API key", f)
		}
	}
}

// TestKeepAlive checks that sequential and concurrent requests reuse
// connections and never exceed MaxConcurrency connections.
func TestKeepAlive(t *testing.T) {
	t.Parallel()
	var conns, open, maxOpen atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeSplit(w, completionsSSE([]string{"a", "b"}, 2, true), 9)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			conns.Add(1)
			n := open.Add(1)
			for m := maxOpen.Load(); n > m && !maxOpen.CompareAndSwap(m, n); m = maxOpen.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := newClient(t, srv, Config{MaxConcurrency: 3})
	for range 5 {
		if r := send(t, c, backend.Request{Model: "m", MaxTokens: 2}); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	// 1 normally; 2 if a request starts in the instant before the
	// transport has put the previous connection back in its idle pool.
	if n := conns.Load(); n > 2 {
		t.Fatalf("5 sequential requests used %d connections, want 1", n)
	}
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			r := &backend.Response{}
			c.Send(t.Context(), &backend.Request{Model: "m", MaxTokens: 2}, r)
			if r.Err != nil {
				t.Error(r.Err)
			}
		})
	}
	wg.Wait()
	if m := maxOpen.Load(); m > 3 {
		t.Fatalf("%d connections open at once, MaxConcurrency 3", m)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		why string
		cfg Config
		msg string
	}{
		{"chat needs chat/completions", Config{API: Chat, URL: "http://h/v1/completions"}, "must end with 'chat/completions'"},
		{"completions needs completions", Config{URL: "http://h/v1/models"}, "must end with 'completions'"},
		{"relative URL", Config{URL: "/v1/completions"}, "invalid API URL"},
		{"bad scheme", Config{URL: "ftp://h/v1/completions"}, "invalid API URL"},
		{"negative concurrency", Config{URL: "http://h/v1/completions", MaxConcurrency: -1}, "max concurrency"},
		{"empty header name", Config{URL: "http://h/v1/completions", Headers: []Header{{"", "x"}}}, "empty header"},
	}
	for _, tt := range tests {
		if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v, want %q", tt.why, err, tt.msg)
		}
	}
}

func TestListModels(t *testing.T) {
	t.Parallel()
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"served","object":"model","root":"Qwen/Qwen3-0.6B"},{"id":"lora1","root":"x"}]}`)
		case "/empty/v1/models":
			io.WriteString(w, `{"data":[]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ms, err := ListModels(t.Context(), nil, srv.URL+"/", "k")
	if err != nil || len(ms) != 2 || ms[0] != (Model{ID: "served", Root: "Qwen/Qwen3-0.6B"}) {
		t.Fatalf("got %v, %v", ms, err)
	}
	if auth.Load() != "Bearer k" {
		t.Errorf("auth %v", auth.Load())
	}
	if _, err := ListModels(t.Context(), nil, srv.URL+"/empty", ""); err == nil || !strings.Contains(err.Error(), "no models") {
		t.Errorf("empty list: %v", err)
	}
	if _, err := ListModels(t.Context(), nil, srv.URL+"/missing", ""); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("404: %v", err)
	}
	// A password in the base URL never reaches an error message.
	withPW := strings.Replace(srv.URL, "http://", "http://user:s3cret-pw@", 1) + "/missing"
	if _, err := ListModels(t.Context(), nil, withPW, ""); err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("error shows the URL's password: %v", err)
	}
}

// TestTLS: a self-signed server fails verification unless Insecure is set,
// and HTTPS stays on HTTP/1.1.
func TestTLS(t *testing.T) {
	t.Parallel()
	protos := make(chan string, 1)
	srv := httptest.NewUnstartedServer(drained(func(w http.ResponseWriter, r *http.Request) {
		protos <- r.Proto
		writeSplit(w, completionsSSE([]string{"a"}, 1, true), 100)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the expected handshake failure
	srv.StartTLS()
	defer srv.Close()
	strict := newClient(t, srv, Config{})
	if r := send(t, strict, backend.Request{Model: "m"}); r.ErrClass != record.ErrConnection || !strings.Contains(r.Err.Error(), "certificate") {
		t.Fatalf("self-signed certificate accepted: %q %v", r.ErrClass, r.Err)
	}
	insecure := newClient(t, srv, Config{Insecure: true})
	if r := send(t, insecure, backend.Request{Model: "m"}); r.Err != nil {
		t.Fatalf("--insecure: %v", r.Err)
	}
	if p := <-protos; p != "HTTP/1.1" {
		t.Fatalf("protocol %s, want HTTP/1.1", p)
	}
}
