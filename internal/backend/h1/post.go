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
// without an http.Request per request (BENCHMARKS.md#cache-lines-per-chunk):
// the head net/http writes for the client's URL and headers,
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

// rawPath is what a Poster needs to send its requests as rawRequests.
type rawPath struct {
	t      *Transport
	addr   string
	tmpl   *http.Request // method and URL, for http.ReadResponse and messages
	prefix []byte
}

// newRawPath returns the raw path for POSTs to apiURL with header h, or
// nil when the direct transport would not send them itself (https, a
// proxy, user info in the URL) or the head is not one it can extend.
func newRawPath(t *Transport, apiURL string, h http.Header) *rawPath {
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
	return &rawPath{t: t, addr: addr, tmpl: tmpl, prefix: append(head, "\r\n"...)}
}

// do sends body with request id id (which must be PlainValue); a
// non-zero deadline bounds it (see rawRequest).
func (p *rawPath) do(ctx context.Context, body []byte, id string, deadline time.Time, tick time.Duration) (*http.Response, error) {
	raw := &rawRequest{prefix: p.prefix, id: id, body: body, deadline: deadline, tick: tick}
	resp, err := p.t.roundTrip(ctx, p.tmpl, raw, p.addr)
	if err != nil {
		// As http.Client reports it.
		return nil, &url.Error{Op: "Post", URL: p.tmpl.URL.String(), Err: err}
	}
	return resp, nil
}

// Poster sends one client's POSTs to one URL, each bounded by the
// client's request timeout and its context, by the cheapest path that
// carries it. When the http.Client's Transport is a *Transport that serves
// the URL, a request whose id is PlainValue and whose context is
// Watchable is written as bytes, without an http.Request or header maps
// per request (the request line and headers are made once), and bounded
// by the transport's watch (BENCHMARKS.md#cache-lines-per-chunk,
// BENCHMARKS.md#timeouts-without-a-timer-per-request). Any other request goes through
// the http.Client, under a context with the timeout when the caller's
// ends later. It is safe for concurrent use.
type Poster struct {
	client  *http.Client
	url     string
	header  http.Header
	timeout time.Duration
	tick    time.Duration
	raw     *rawPath // nil when the requests cannot go as bytes
}

// NewPoster returns the Poster for POSTs to apiURL with header h (which
// must not hold X-Request-Id: each request sets its own) through client,
// each bounded by timeout (> 0).
func NewPoster(client *http.Client, apiURL string, h http.Header, timeout time.Duration) (*Poster, error) {
	if _, err := http.NewRequestWithContext(context.Background(), http.MethodPost, apiURL, nil); err != nil {
		return nil, err
	}
	p := &Poster{client: client, url: apiURL, header: h, timeout: timeout, tick: TickFor(timeout)}
	if t, ok := client.Transport.(*Transport); ok {
		p.raw = newRawPath(t, apiURL, h)
	}
	return p, nil
}

// Direct reports whether Post writes requests as bytes on the Transport
// (those with a PlainValue id under a Watchable context).
func (p *Poster) Direct() bool { return p.raw != nil }

// Exchange is one POST sent: its answer and the context that bounds it.
// Close releases both.
type Exchange struct {
	// Resp is the answer, nil when Post failed; its body is the caller's
	// to read.
	Resp   *http.Response
	ctx    context.Context
	cancel context.CancelFunc
}

// Context is the context that bounds the exchange: the caller's, or one
// derived with the request timeout. Errors are to be judged by it (a
// timeout shows as its DeadlineExceeded).
func (e Exchange) Context() context.Context { return e.ctx }

// Close closes the answer's body, if any, and then ends the exchange's
// own context, if it has one.
func (e Exchange) Close() {
	if e.Resp != nil {
		e.Resp.Body.Close()
	}
	if e.cancel != nil {
		e.cancel()
	}
}

// Post sends body with request id id ("" for none) and returns the
// exchange, which the caller must Close once it has read what it wants of
// the answer, even when err is not nil. *start is set to time.Now()
// immediately before the request goes to the transport. The request
// timeout and ctx bound the whole exchange, body included; on the direct
// path a deadline fires up to one tick late (TickFor). Errors are
// *url.Error, as http.Client returns them; a body read that the deadline
// or a cancel ended fails with context.DeadlineExceeded or ctx's error.
func (p *Poster) Post(ctx context.Context, body []byte, id string, start *time.Time) (Exchange, error) {
	if p.raw != nil && PlainValue([]byte(id)) && Watchable(ctx) {
		deadline := time.Now().Add(p.timeout)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		*start = time.Now()
		resp, err := p.raw.do(ctx, body, id, deadline, p.tick)
		return Exchange{Resp: resp, ctx: ctx}, err
	}
	ex := Exchange{ctx: ctx}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > p.timeout {
		// Only when the caller's deadline is later: a second timer and
		// context per request cost CPU at 1,000 streams
		// (BENCHMARKS.md#the-head-of-a-chunk).
		ex.ctx, ex.cancel = context.WithTimeout(ctx, p.timeout)
	}
	hreq, err := http.NewRequestWithContext(ex.ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return ex, err
	}
	hreq.Header = p.requestHeader(id)
	*start = time.Now()
	ex.Resp, err = p.client.Do(hreq)
	return ex, err
}

// requestHeader is the client's headers plus the request's id. The value
// slices are shared, not cloned: nothing on the request path changes
// them, and each would be an allocation per request.
func (p *Poster) requestHeader(id string) http.Header {
	h := make(http.Header, len(p.header)+1)
	for k, v := range p.header {
		h[k] = v[:len(v):len(v)] // an append makes a copy
	}
	if id != "" {
		h["X-Request-Id"] = []string{id}
	}
	return h
}
