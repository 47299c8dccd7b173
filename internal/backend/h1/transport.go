// Package h1 is the benchmark's HTTP/1.1 client transport for plain
// http:// URLs: a round tripper that dials, writes the request, reads the
// answer's head and streams its body on the calling goroutine, with no
// goroutine or channel per connection (docs/transport.md,
// docs/fidelity.md, "The transport"). Transport implements
// http.RoundTripper and keeps its own pool of idle connections; Poster
// sends a client's POSTs, as bytes when it can, each bounded by the
// request timeout through one ticker per transport instead of a timer per
// request; Preconnect opens connections before a timed run.
//
// It reads what net/http's Transport reads and rejects what it rejects —
// 1xx heads skipped, heads bounded to 10 MiB, bare-LF heads, chunked
// framing with net/http's limits — and every hand-written reader is fuzzed
// against net/http. It never sends a request twice unless the first could
// not have reached the server.
//
// It does not do TLS, proxies, HTTP/2, redirects, cookies, retries or
// decompression: a request with an https:// URL, user info or a proxy
// goes to the fallback *http.Transport it is given. It knows nothing of
// the payload it carries (SSE, JSON): that is the caller's.
package h1

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Transport is an HTTP/1.1 round tripper for plain http:// URLs
// that does everything on the calling goroutine: dial, write the request,
// read the status line and headers, and — through the response body —
// every chunk of the stream. net/http's Transport runs a dial goroutine
// and a read and a write goroutine per connection and hands the request
// and the response between them over channels; on a busy 2-core host each
// hand-over waits in the run queue behind the other streams, and that wait
// lands in TTFT (docs/fidelity.md, "The transport"). Requests are written
// by Request.Write, or as bytes for a Poster's POSTs (post.go);
// response heads are read by http.ReadResponse, or in place when they are
// a usual streamed answer's (head.go); chunked bodies in place
// (chunked.go). Each of those is fuzzed against net/http.
//
// It serves requests that need nothing else: http://, no proxy for the URL
// (HTTP_PROXY/NO_PROXY as net/http reads them). Anything else goes to
// fallback. Like the fallback it never sends a request twice unless the
// first could not have reached the server: only when writing it on a kept
// connection failed before a byte of it was written does it go once more
// on a new connection (net/http's nothingWrittenError). A kept connection
// that ends before any byte of an answer fails the request: the server may
// have read it, and a POST is not replayable (docs/transport.md).
type Transport struct {
	fallback *http.Transport
	// dial opens a connection (a net.Dialer's; tests replace it).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	idle    map[string][]*directConn // by host:port, most recent last
	maxIdle int                      // per host
	// maxConns caps the connections per host, busy or idle (0 = no cap),
	// like http.Transport.MaxConnsPerHost; open counts them and waiting
	// holds the requests that wait for one, first come first served: a
	// connection put back, or nil for leave to dial.
	maxConns int
	open     map[string]int
	waiting  map[string][]chan *directConn
	writers  sync.Pool // *bufio.Writer
	watch    watch
}

// directConn is one kept connection and its read buffer. The buffer and
// the request writer go through it (Read, Write), so that a response head
// is bounded and a failed write says whether any byte left.
type directConn struct {
	c  net.Conn
	br *bufio.Reader // reads through the directConn (Read)
	// limit is how many bytes br may still read from c: maxHeadBytes for
	// the heads of one exchange, noLimit for its body (net/http's
	// persistConn.readLimit).
	limit int64
	// written counts the bytes written to c (net/http's persistConn.nwrite).
	written int64
}

// newDirectConn wraps a connection just dialled.
func newDirectConn(c net.Conn) *directConn {
	dc := &directConn{c: c, limit: noLimit}
	dc.br = bufio.NewReaderSize(dc, directReadBuffer)
	return dc
}

// Read reads from the connection within the limit.
func (dc *directConn) Read(p []byte) (int, error) {
	if dc.limit <= 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > dc.limit {
		p = p[:dc.limit]
	}
	n, err := dc.c.Read(p)
	dc.limit -= int64(n)
	return n, err
}

// Write writes to the connection and counts what it took.
func (dc *directConn) Write(p []byte) (int, error) {
	n, err := dc.c.Write(p)
	dc.written += int64(n)
	return n, err
}

// maxHeadBytes bounds what the response heads of one exchange may take,
// 1xx heads included: net/http's Transport default
// (MaxResponseHeaderBytes 0 means 10 MiB), which reads its heads through
// the same kind of limit.
const maxHeadBytes = 10 << 20

// noLimit is directConn.limit outside a head.
const noLimit = math.MaxInt64

// errHeadTooLarge is a response head that outgrew maxHeadBytes; it fails
// the request as record.ErrResponseTooLarge (transportError). The message
// is net/http's for the same limit.
var errHeadTooLarge = fmt.Errorf("server response headers exceeded %d bytes; aborted", maxHeadBytes)

// directReadBuffer is each connection's read buffer: several SSE events;
// reads larger than it go straight to the caller's buffer.
const directReadBuffer = 1024

// New returns a Transport that keeps up to maxIdle idle connections per
// host and sends what it does not serve to fallback, whose Proxy (which
// must be set) and MaxConnsPerHost it follows as well.
func New(fallback *http.Transport, maxIdle int) *Transport {
	t := &Transport{fallback: fallback, idle: map[string][]*directConn{}, maxIdle: maxIdle, dial: directDialer.DialContext,
		maxConns: fallback.MaxConnsPerHost, open: map[string]int{}, waiting: map[string][]chan *directConn{}}
	t.writers.New = func() any { return bufio.NewWriterSize(nil, 4096) }
	return t
}

// dialBefore dials addr for an exchange bounded by deadline, or by ctx
// alone when deadline is zero (then within dialTimeout if ctx sets no
// deadline either). A deadline more than kernelDialBound away leaves the
// dial to the kernel's bound on unanswered SYNs, as aiohttp does (its total
// timeout is 6 hours by default): each context and timer per dial costs
// CPU at 1,000 streams (BENCHMARKS.md#cache-lines-per-chunk).
func (t *Transport) dialBefore(ctx context.Context, addr string, deadline time.Time) (net.Conn, error) {
	var cancel context.CancelFunc = func() {}
	switch _, bounded := ctx.Deadline(); {
	case deadline.IsZero() && !bounded:
		ctx, cancel = context.WithTimeout(ctx, dialTimeout)
	case !deadline.IsZero() && time.Until(deadline) < kernelDialBound:
		ctx, cancel = context.WithDeadline(ctx, deadline)
	}
	defer cancel()
	return t.dial(ctx, "tcp", addr)
}

// dialTimeout bounds a dial that nothing else bounds, as net/http's
// default transport does.
const dialTimeout = 30 * time.Second

// kernelDialBound is longer than Linux tries a connection that gets no
// answer (6 SYN retries: 127 s).
const kernelDialBound = 3 * time.Minute

// directDialer dials for the direct transport, bounded by the context it
// is given (dialBefore). It does not turn on TCP keep-alive probes
// (net.Dial does, with four setsockopt calls per connection): aiohttp,
// vLLM's client, does not either, and a benchmark's requests carry their
// own deadline.
var directDialer = &net.Dialer{KeepAlive: -1}

// SetMaxIdle raises the idle pool to at least n per host.
func (t *Transport) SetMaxIdle(n int) {
	t.mu.Lock()
	t.maxIdle = max(t.maxIdle, n)
	t.mu.Unlock()
}

// Serves says whether t sends req itself (http://, no user info, no
// proxy) rather than through its fallback.
func (t *Transport) Serves(req *http.Request) bool {
	_, ok := t.serves(req)
	return ok
}

// serves says whether req is the direct transport's to send, and the
// server's host:port.
func (t *Transport) serves(req *http.Request) (addr string, ok bool) {
	if req.URL.Scheme != "http" || req.URL.User != nil {
		return "", false
	}
	if p, err := t.fallback.Proxy(req); err != nil || p != nil {
		return "", false
	}
	addr = req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	return addr, true
}

// RoundTrip sends req; see Transport.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	addr, ok := t.serves(req)
	if !ok {
		return t.fallback.RoundTrip(req)
	}
	return t.roundTrip(req.Context(), req, nil, addr)
}

// roundTrip sends req, or raw when set (req is then its template: method
// and URL for http.ReadResponse and messages, never written), on a kept
// or new connection to addr.
func (t *Transport) roundTrip(ctx context.Context, req *http.Request, raw *rawRequest, addr string) (*http.Response, error) {
	var deadline time.Time
	if raw != nil {
		deadline = raw.deadline
	}
	for attempt := 0; ; attempt++ {
		dc, err := t.take(ctx, addr, deadline)
		if err != nil {
			return nil, err
		}
		reused := dc != nil
		if !reused {
			c, err := t.dialBefore(ctx, addr, deadline)
			if err != nil {
				t.release(addr)
				return nil, err
			}
			dc = newDirectConn(c)
		}
		resp, err := t.exchange(ctx, req, raw, dc, addr)
		if err == nil {
			return resp, nil
		}
		t.closeConn(addr, dc)
		// A kept connection that failed the write before any byte of the
		// request left: nothing reached the server, so the request may go
		// once more on a new connection. Anything else may have reached it
		// (a server that reads a request and closes looks like one that
		// closed while idle), and a POST must not be sent twice.
		var nw nothingWritten
		if !reused || attempt > 0 || !errors.As(err, &nw) {
			return nil, err
		}
		err = nw.err
		if raw != nil {
			continue // its bytes are still there
		}
		if req.GetBody == nil {
			return nil, err
		}
		body, gerr := req.GetBody()
		if gerr != nil {
			return nil, err
		}
		req.Body = body
	}
}

// errNoAnswer is a connection that ended before any byte of an answer.
var errNoAnswer = errors.New("connection closed before any response")

// nothingWritten is a write that failed before any byte of the request
// reached the connection: the one failure after which a request may be
// sent again (net/http's nothingWrittenError).
type nothingWritten struct{ err error }

func (e nothingWritten) Error() string { return e.err.Error() }
func (e nothingWritten) Unwrap() error { return e.err }

// exchange writes req (or raw) on dc and reads the response head; the
// body reads from dc on the caller's goroutine. Cancelling ctx unblocks
// any read or write by setting a past deadline.
func (t *Transport) exchange(ctx context.Context, req *http.Request, raw *rawRequest, dc *directConn, addr string) (*http.Response, error) {
	body := &directBody{t: t, dc: dc, addr: addr, ctx: ctx}
	if raw != nil && !raw.deadline.IsZero() {
		body.deadline, body.watched = raw.deadline, true
		t.watch.add(body, raw.tick)
	} else {
		body.stop = context.AfterFunc(ctx, func() { _ = dc.c.SetDeadline(time.Unix(1, 0)) })
	}
	written := dc.written
	bw := t.writers.Get().(*bufio.Writer)
	bw.Reset(dc)
	var err error
	if raw != nil {
		err = raw.write(bw)
	} else {
		err = req.Write(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	t.writers.Put(bw)
	var resp *http.Response
	switch {
	case err == nil:
		resp, err = readHead(dc, req, raw != nil)
	case dc.written == written:
		err = nothingWritten{err}
	case dc.br.Buffered() > 0 || bytesWaiting(dc.c):
		// The server answered before it read the whole request and
		// closed (an early 413): its answer says more than the write's
		// error, and net/http returns it too when it came first. Only an
		// answer already there is read: a write can fail on a connection
		// that still reads, and nothing would end the wait but the
		// request's deadline.
		if resp, _ = readHead(dc, req, false); resp != nil {
			resp.Close = true
		}
	}
	if resp == nil {
		body.release()
		if cause := body.cause(); cause != nil {
			return nil, cause
		}
		return nil, err
	}
	body.rc = resp.Body
	body.keep = !resp.Close && !req.Close && (resp.ContentLength >= 0 || len(resp.TransferEncoding) > 0)
	if resp.Body != http.NoBody && slices.Equal(resp.TransferEncoding, chunkedTE) {
		// A streamed answer: read it in place (chunked.go) and leave
		// net/http's chunked body, which has read nothing yet, unused.
		body.ch, body.chunked = chunkedBody{br: dc.br, c: dc.c}, true
		// net/http's body holds the Response, and through it the
		// Request, its body and both header maps: ~2 KB per stream that
		// can go while the answer streams.
		body.rc = nil
	}
	resp.Body = body
	return resp, nil
}

// readHead reads the answer's head from dc, in place when fast is set and
// it is a usual streamed answer's (head.go), else with http.ReadResponse.
// Like net/http's Transport it passes over 1xx heads (100 Continue, 103
// Early Hints: the answer follows them on the same connection) but for
// 101, and bounds all the heads it reads together by maxHeadBytes.
func readHead(dc *directConn, req *http.Request, fast bool) (*http.Response, error) {
	dc.limit = maxHeadBytes
	defer func() { dc.limit = noLimit }()
	if _, err := dc.br.Peek(1); err != nil {
		if err == io.EOF {
			err = errNoAnswer
		}
		return nil, headError(dc, err)
	}
	for {
		if fast {
			if n, closeConn, ok := streamHead(peekHead(dc.br)); ok {
				_, _ = dc.br.Discard(n)
				return streamResponse(req, closeConn), nil
			}
		}
		resp, err := http.ReadResponse(dc.br, req)
		if err != nil {
			return nil, headError(dc, err)
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
	}
}

// headError is err, or errHeadTooLarge when the limit ended the read.
func headError(dc *directConn, err error) error {
	if dc.limit <= 0 {
		return errHeadTooLarge
	}
	return err
}

// directBody returns its connection to the pool when the body was read
// to its end and the connection may be kept; otherwise closes it.
type directBody struct {
	rc io.ReadCloser
	// ch reads a chunked body when chunked is set; rc is then unused.
	ch      chunkedBody
	chunked bool
	t       *Transport
	dc      *directConn
	addr    string
	ctx     context.Context
	// Either the transport's watch bounds the exchange by deadline and ctx
	// (watched; fired says what ended it), or stop removes the hook that
	// ctx's cancellation would run.
	watched  bool
	deadline time.Time
	fired    atomic.Uint32
	stop     func() bool
	keep     bool
	eof      bool
	done     bool
}

// fire ends the exchange: a past deadline unblocks its reads and writes.
func (b *directBody) fire(why uint32) {
	if b.fired.CompareAndSwap(firedNone, why) {
		_ = b.dc.c.SetDeadline(time.Unix(1, 0))
	}
}

// release stops watching the exchange and reports whether its deadline
// or context ended it.
func (b *directBody) release() (fired bool) {
	if b.watched {
		return b.t.watch.remove(b)
	}
	return !b.stop()
}

// cause is why the exchange ended early, nil if it did not: the past
// deadline set then shows as an i/o timeout, which would hide it.
func (b *directBody) cause() error {
	if b.fired.Load() == firedDeadline {
		return context.DeadlineExceeded
	}
	return b.ctx.Err()
}

func (b *directBody) Read(p []byte) (n int, err error) {
	if b.chunked {
		n, err = b.ch.Read(p)
	} else {
		n, err = b.rc.Read(p)
	}
	if err == io.EOF {
		b.eof = true
	} else if err != nil {
		if cause := b.cause(); cause != nil {
			err = cause
		}
	}
	return n, err
}

func (b *directBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	fired := b.release()
	if !b.eof || !b.keep || fired || (b.chunked && !b.ch.reusable()) {
		// Close the socket first: net/http's body would otherwise drain
		// the rest of the answer, which may never end.
		b.t.closeConn(b.addr, b.dc)
		if !b.chunked {
			_ = b.rc.Close()
		}
		return nil
	}
	var err error
	if !b.chunked {
		err = b.rc.Close()
	}
	if err != nil || !b.t.put(b.addr, b.dc) {
		b.t.closeConn(b.addr, b.dc)
	}
	return err
}

// take is get, passing over idle connections that can no longer carry a
// request (closed by the server while idle, or holding bytes nobody asked
// for): each is closed and the next tried, or a new one dialled.
func (t *Transport) take(ctx context.Context, addr string, deadline time.Time) (*directConn, error) {
	for {
		dc, err := t.get(ctx, addr, deadline)
		if err != nil || dc == nil || (dc.br.Buffered() == 0 && idleConnAlive(dc.c)) {
			return dc, err
		}
		t.closeConn(addr, dc)
	}
}

// get takes the most recently used idle connection to addr; nil means
// the caller may dial a new one (and must release it when it closes).
// At maxConns it waits for a connection to come back or close, until ctx
// ends or the deadline (if not zero) passes.
func (t *Transport) get(ctx context.Context, addr string, deadline time.Time) (*directConn, error) {
	t.mu.Lock()
	if l := t.idle[addr]; len(l) > 0 {
		dc := l[len(l)-1]
		t.idle[addr] = l[:len(l)-1]
		t.mu.Unlock()
		return dc, nil
	}
	if t.maxConns <= 0 || t.open[addr] < t.maxConns {
		t.open[addr]++
		t.mu.Unlock()
		return nil, nil
	}
	w := make(chan *directConn, 1)
	t.waiting[addr] = append(t.waiting[addr], w)
	t.mu.Unlock()
	var expired <-chan time.Time
	if !deadline.IsZero() {
		tm := time.NewTimer(time.Until(deadline))
		defer tm.Stop()
		expired = tm.C
	}
	var err error
	select {
	case dc := <-w:
		return dc, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-expired:
		err = context.DeadlineExceeded
	}
	t.mu.Lock()
	t.waiting[addr] = slices.DeleteFunc(t.waiting[addr], func(c chan *directConn) bool { return c == w })
	t.mu.Unlock()
	select {
	case dc := <-w: // handed over just before it was withdrawn: pass it on
		if dc != nil && t.put(addr, dc) {
			return nil, err
		}
		if dc != nil {
			dc.c.Close()
		}
		t.release(addr)
	default:
	}
	return nil, err
}

// put hands dc to the first waiting request, or keeps it idle unless the
// pool for addr is full (false: the caller closes it).
func (t *Transport) put(addr string, dc *directConn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ws := t.waiting[addr]; len(ws) > 0 {
		t.waiting[addr] = ws[1:]
		ws[0] <- dc
		return true
	}
	if len(t.idle[addr]) >= t.maxIdle {
		return false
	}
	t.idle[addr] = append(t.idle[addr], dc)
	return true
}

// closeConn closes dc and gives its place to a waiting request.
func (t *Transport) closeConn(addr string, dc *directConn) {
	dc.c.Close()
	t.release(addr)
}

// release frees one connection's place for addr: the first waiting
// request may dial.
func (t *Transport) release(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ws := t.waiting[addr]; len(ws) > 0 {
		t.waiting[addr] = ws[1:]
		ws[0] <- nil // its place: open stays as it is
		return
	}
	t.open[addr]--
}

// CloseIdleConnections closes the kept connections (and the fallback's).
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*directConn{}
	t.mu.Unlock()
	for addr, l := range idle {
		for _, dc := range l {
			t.closeConn(addr, dc)
		}
	}
	t.fallback.CloseIdleConnections()
}

// Preconnect opens connections to probe's server at once until n are
// idle in the pool (whose size it raises to n), and returns how many are
// idle and the first error; ctx bounds all of it. probe, a GET without a
// body that Serves accepts, is written as bytes on each connection and
// its answer read to its end: the server has then accepted the
// connection and served a request on it, so none of its connection
// set-up is left to the timed run. Dialling alone, as the floor client's
// -preconnect does, left llmbench's TTFT error 3-5 ms above the floor's
// at 1,000 streams; a request through net/http's types cost about 0.06
// CPU s (BENCHMARKS.md#cache-lines-per-chunk).
func (t *Transport) Preconnect(ctx context.Context, probe *http.Request, n int) (int, error) {
	addr, ok := t.serves(probe)
	if !ok {
		return 0, errors.New("h1: Preconnect: the request is not one the transport serves")
	}
	var head bytes.Buffer
	if err := probe.Write(&head); err != nil {
		return 0, err
	}
	return t.preconnect(ctx, addr, n, probe, &rawRequest{prefix: head.Bytes(), whole: true})
}

// preconnect is Preconnect for probe, written as raw, to addr.
func (t *Transport) preconnect(ctx context.Context, addr string, n int, probe *http.Request, raw *rawRequest) (int, error) {
	t.mu.Lock()
	t.maxIdle = max(t.maxIdle, n)
	dial := n - len(t.idle[addr])
	if t.maxConns > 0 {
		dial = min(dial, t.maxConns-t.open[addr])
	}
	dial = max(dial, 0)
	t.open[addr] += dial // released for each connection that fails
	t.mu.Unlock()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range dial {
		wg.Go(func() {
			if err := t.open1(ctx, addr, probe, raw); err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.mu.Lock()
	idle := len(t.idle[addr])
	t.mu.Unlock()
	return min(idle, n), first
}

// open1 dials one connection to addr, sends probe on it and, once the
// answer is read, leaves it idle in the pool (its place is already
// counted in open).
func (t *Transport) open1(ctx context.Context, addr string, probe *http.Request, raw *rawRequest) error {
	c, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		t.release(addr)
		return err
	}
	dc := newDirectConn(c)
	resp, err := t.exchange(ctx, probe, raw, dc, addr)
	if err != nil {
		t.closeConn(addr, dc)
		return err
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close() // keeps the connection if the answer was read to its end
	return err
}
