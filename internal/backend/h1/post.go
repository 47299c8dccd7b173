package h1

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// rawRequest is a benchmark request as the direct transport writes it,
// without an http.Request per request (BENCHMARKS.md, "Cache lines per
// chunk"): the head net/http writes for the client's URL and headers,
// made once (NewPoster), then Content-Length, X-Request-Id and the body.
type rawRequest struct {
	prefix []byte // request line and fixed headers, without the blank line
	id     string // X-Request-Id, "" for none; PlainValue only
	body   []byte
	// whole: prefix is the whole request, blank line included (a GET).
	whole bool
	// deadline, when set, bounds the exchange through the transport's
	// watch (checked every tick) instead of a hook on its context.
	deadline time.Time
	tick     time.Duration
}

// write writes the request to bw.
func (r *rawRequest) write(bw *bufio.Writer) error {
	if r.whole {
		_, err := bw.Write(r.prefix)
		return err
	}
	_, _ = bw.Write(r.prefix)
	_, _ = bw.WriteString("Content-Length: ")
	var digits [20]byte
	_, _ = bw.Write(strconv.AppendInt(digits[:0], int64(len(r.body)), 10))
	if r.id != "" {
		_, _ = bw.WriteString("\r\nX-Request-Id: ")
		_, _ = bw.WriteString(r.id)
	}
	_, _ = bw.WriteString("\r\n\r\n")
	_, err := bw.Write(r.body)
	return err
}

// Poster sends one client's POSTs to one URL as bytes, without an
// http.Request or header maps per request: the request line and headers
// are written once (NewPoster), and each Post adds Content-Length,
// X-Request-Id and the body. It is safe for concurrent use.
type Poster struct {
	t      *Transport
	addr   string
	tmpl   *http.Request // method and URL, for http.ReadResponse and messages
	prefix []byte
}

// NewPoster returns the Poster for POSTs through t to apiURL with header h
// (which must not hold X-Request-Id), or nil when t would not send them
// itself (https, a proxy, user info in the URL) or the head is not one it
// can extend.
func NewPoster(t *Transport, apiURL string, h http.Header) *Poster {
	tmpl, err := http.NewRequestWithContext(context.Background(), http.MethodPost, apiURL, nil)
	if err != nil {
		return nil
	}
	addr, ok := t.serves(tmpl)
	if !ok || h.Get("X-Request-Id") != "" {
		return nil
	}
	// The head net/http writes for a POST with an empty body, less its
	// "Content-Length: 0" line and the blank line: the same request line,
	// Host, User-Agent and headers, in net/http's order and spelling.
	r := tmpl.Clone(context.Background())
	r.Header = h.Clone()
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		return nil
	}
	head, ok := bytes.CutSuffix(buf.Bytes(), []byte("\r\n\r\n"))
	const cl = "\r\nContent-Length: 0"
	if !ok || bytes.Count(head, []byte(cl)) != 1 {
		return nil
	}
	head = bytes.Replace(head, []byte(cl), nil, 1)
	return &Poster{t: t, addr: addr, tmpl: tmpl, prefix: append(head, "\r\n"...)}
}

// Post sends body with request id id ("" for none; it must be PlainValue)
// and returns the answer, whose body the caller reads and closes. ctx and
// deadline bound the whole exchange, body included: a non-zero deadline
// is checked by the transport's watch every tick (at most one tick late),
// and ctx, which must then be Watchable, ends it when cancelled; with a
// zero deadline ctx alone bounds it, through a hook of its own. Errors
// are *url.Error, as http.Client returns them; a body read that the
// deadline or a cancel ended fails with context.DeadlineExceeded or ctx's
// error.
func (p *Poster) Post(ctx context.Context, body []byte, id string, deadline time.Time, tick time.Duration) (*http.Response, error) {
	raw := &rawRequest{prefix: p.prefix, id: id, body: body, deadline: deadline, tick: tick}
	resp, err := p.t.roundTrip(ctx, p.tmpl, raw, p.addr)
	if err != nil {
		// As http.Client reports it.
		return nil, &url.Error{Op: "Post", URL: p.tmpl.URL.String(), Err: err}
	}
	return resp, nil
}
