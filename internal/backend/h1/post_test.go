package h1

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzStreamHead: a head streamHead accepts, http.ReadResponse reads the
// same way: status 200, chunked, the same Connection decision, and the
// body starting at the same byte.
func FuzzStreamHead(f *testing.F) {
	for _, h := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
		"HTTP/1.1 200 OK\r\ndate: Tue, 01 Dec 2026 22:00:00 GMT\r\nserver: uvicorn\r\ncontent-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n",
		"HTTP/1.1 200\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding:chunked \r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: Keep-Alive, close\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n",
	} {
		f.Add([]byte(h))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		n, closeConn, ok := streamHead(in)
		if !ok {
			return
		}
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v1/completions", nil)
		rd := bytes.NewReader(in)
		br := bufio.NewReader(rd)
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("streamHead accepted %q (%d bytes), net/http: %v", in, n, err)
		}
		consumed := len(in) - rd.Len() - br.Buffered()
		if resp.StatusCode != http.StatusOK || !reflect.DeepEqual(resp.TransferEncoding, []string{"chunked"}) ||
			resp.ContentLength != -1 || resp.Close != closeConn || consumed != n {
			t.Fatalf("%q: streamHead %d bytes close=%v; net/http status %d TE %q length %d close=%v, %d bytes",
				in, n, closeConn, resp.StatusCode, resp.TransferEncoding, resp.ContentLength, resp.Close, consumed)
		}
	})
}

// TestStreamHeadPassesOn: the heads streamHead leaves to net/http.
func TestStreamHeadPassesOn(t *testing.T) {
	for _, h := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 2000 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: Keep-Alive, close\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTrailer: X-T\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Utf8: caf\xc3\xa9\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n", // not complete
		"HTTP/1.1 200 OK\r\n\r\n", // not chunked
	} {
		if n, _, ok := streamHead([]byte(h)); ok {
			t.Errorf("streamHead took %q (%d bytes); want it left to net/http", h, n)
		}
	}
}

// TestRawRequestMatchesNetHTTP: the bytes the raw path writes are the
// request net/http writes for the same body, headers and id.
func TestRawRequestMatchesNetHTTP(t *testing.T) {
	body := []byte(`{"model":"m","prompt":"a b c","max_tokens":3,"stream":true}`)
	// The headers as openai.New makes them: Content-Type, Authorization,
	// User-Agent, then the user's, each through Header.Set.
	header := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		name string
		url  string
		h    http.Header
		id   string
	}{
		{name: "plain", url: "http://127.0.0.1:8000/v1/completions",
			h: header("Content-Type", "application/json", "User-Agent", "llmbench")},
		{name: "key and id", url: "http://127.0.0.1:8000/v1/completions",
			h: header("Content-Type", "application/json", "Authorization", "Bearer sk-1", "User-Agent", "llmbench"), id: "req-7"},
		{name: "headers", url: "http://localhost/v1/chat/completions",
			h: header("Content-Type", "application/json", "User-Agent", "ua/2", "x-extra", "v", "Accept", "text/event-stream"), id: "r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Both of one Poster's paths: the bytes, and the
			// http.Request the http.Client would write.
			p, err := NewPoster(&http.Client{Transport: New(netHTTP(0, false), 1)}, tc.url, tc.h, time.Minute)
			if err != nil || !p.Direct() {
				t.Fatalf("no raw path for a plain http:// URL (%v)", err)
			}
			var got bytes.Buffer
			bw := bufio.NewWriter(&got)
			if err := (&rawRequest{prefix: p.raw.prefix, id: tc.id, body: body}).write(bw); err != nil {
				t.Fatal(err)
			}
			_ = bw.Flush()
			want, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, tc.url, bytes.NewReader(body))
			want.Header = p.requestHeader(tc.id)
			var wantBytes bytes.Buffer
			if err := want.Write(&wantBytes); err != nil {
				t.Fatal(err)
			}
			g, w := readRequest(t, got.Bytes()), readRequest(t, wantBytes.Bytes())
			if !reflect.DeepEqual(g, w) {
				t.Errorf("raw request\n%q\nreads as\n%+v\nnet/http's\n%q\nas\n%+v", got.String(), g, wantBytes.String(), w)
			}
		})
	}
}

type parsedRequest struct {
	Method, RequestURI, Host, Proto string
	Header                          http.Header
	ContentLength                   int64
	Body                            string
}

func readRequest(t *testing.T, b []byte) parsedRequest {
	t.Helper()
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	body, _ := io.ReadAll(r.Body)
	return parsedRequest{r.Method, r.RequestURI, r.Host, r.Proto, r.Header, r.ContentLength, string(body)}
}

// TestPosterOnlyDirect: https, a proxy, user info in the URL or an
// X-Request-Id among the fixed headers go through net/http; a raw path's
// head starts with the request line and Host.
func TestPosterOnlyDirect(t *testing.T) {
	client := &http.Client{Transport: New(netHTTP(0, false), 1)}
	for _, tc := range []struct {
		url  string
		h    http.Header
		want bool
	}{
		{"http://127.0.0.1:8000/v1/completions", http.Header{}, true},
		{"https://127.0.0.1:8000/v1/completions", http.Header{}, false},
		{"http://u:p@127.0.0.1:8000/v1/completions", http.Header{}, false},
		{"http://127.0.0.1:8000/v1/completions", http.Header{"X-Request-Id": {"x"}}, false},
	} {
		p, err := NewPoster(client, tc.url, tc.h, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Direct(); got != tc.want {
			t.Errorf("%s %v: direct %v, want %v", tc.url, tc.h, got, tc.want)
		}
	}
	if _, err := NewPoster(client, "http://[::1", http.Header{}, time.Minute); err == nil {
		t.Error("NewPoster took a URL that does not parse")
	}
	if p := newRawPath(client.Transport.(*Transport), "http://127.0.0.1:8000/v1/completions", http.Header{}); !strings.HasPrefix(string(p.prefix), "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n") {
		t.Error("prefix does not start with the request line and Host")
	}
}
