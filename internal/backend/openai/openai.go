// Package openai is the benchmark client for OpenAI-compatible servers
// (vLLM's /v1/completions and /v1/chat/completions): it builds the request
// bodies vLLM's "openai" and "openai-chat" backends send, streams the SSE
// response through internal/backend/stream and stamps each token chunk with
// the monotonic time of the read that completed it. Requests go out through
// internal/backend/h1: its hand-written HTTP/1.1 transport for plain
// http:// URLs, net/http for the rest.
//
// It does not retry, follow redirects or decompress: each of those would
// change what is measured. Like vLLM's aiohttp session (trust_env=True) it
// honours HTTP_PROXY/HTTPS_PROXY/NO_PROXY; loopback is never proxied.
package openai

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/h1"
	"github.com/llmbench/llmbench/internal/backend/stream"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// API selects the endpoint type.
type API uint8

const (
	// Completions is /v1/completions (vLLM --backend openai or vllm).
	Completions API = iota
	// Chat is /v1/chat/completions (vLLM --backend openai-chat).
	Chat
)

// String names the API like vLLM's --backend value.
func (a API) String() string {
	if a == Chat {
		return "openai-chat"
	}
	return "openai"
}

// Format is the payload format the API streams (package stream decodes
// it, for this backend and SageMaker's alike).
func (a API) Format() stream.Format {
	if a == Chat {
		return stream.FormatChat
	}
	return stream.FormatCompletions
}

// DefaultTimeout is the per-request deadline when Config.Timeout is 0:
// vLLM's aiohttp session allows 6 hours per request.
const DefaultTimeout = 6 * time.Hour

// Secret holds a credential. It prints as "[redacted]" so that a Config
// logged with %v or %+v never shows the key.
type Secret string

// String hides the secret.
func (Secret) String() string { return "[redacted]" }

// GoString hides the secret from %#v.
func (Secret) GoString() string { return `"[redacted]"` }

// Header is one extra HTTP header (vLLM's --header KEY=VALUE).
type Header struct{ Key, Value string }

// Config configures a Client. The zero value of every field but URL is a
// usable default.
type Config struct {
	// URL is the full API URL: base URL + endpoint, for example
	// "http://127.0.0.1:8000/v1/completions". Required; it must end with
	// "completions" (Completions) or "chat/completions" (Chat), as vLLM
	// checks.
	URL string
	// API selects the body format; zero is Completions.
	API API
	// APIKey, when non-empty, is sent as "Authorization: Bearer <key>"
	// (the CLI reads OPENAI_API_KEY, like vLLM).
	APIKey Secret
	// Headers are extra headers sent on every request, in order, after
	// Content-Type and Authorization (so they can replace them); the
	// request's x-request-id is set last and wins over a same-named header.
	Headers []Header
	// Logprobs is sent as "logprobs" in completions bodies; nil sends null.
	Logprobs *int
	// MaxConcurrency sizes the connection pool: with N > 0 at most N
	// connections per host are opened and N are kept idle (vLLM limits its
	// aiohttp pool to --max-concurrency the same way). 0 means no
	// connection limit and an idle pool of 1024.
	MaxConcurrency int
	// Timeout bounds each request from send to the end of the stream; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// Insecure skips TLS certificate verification (vLLM's --insecure).
	Insecure bool
	// UserAgent is the User-Agent header; "" sends "llmbench".
	UserAgent string
	// ReadBufferBytes is the size of each read from the response body;
	// 0 means 1024 (an SSE event is a few hundred bytes; docs/fidelity.md,
	// "The transport"). Chunks are stamped per read, so a smaller buffer
	// never changes stamps while the server sends less than this per write.
	ReadBufferBytes int
	// MaxResponseBytes caps what one response may hold in memory:
	// generated text, stream.ChunkStampBytes per token chunk and an
	// incomplete line; 0 means stream.DefaultMaxResponseBytes (16 MiB).
	// A response that outgrows it fails as record.ErrResponseTooLarge,
	// keeping the TTFT and ITLs measured so far.
	MaxResponseBytes int
	// MaxTotalResponseBytes caps what all responses in flight hold
	// together, whatever the concurrency; 0 means
	// stream.DefaultMaxTotalResponseBytes (1 GiB). A response that finds
	// it used up fails as record.ErrResponseTooLarge too.
	MaxTotalResponseBytes int64
}

// Client sends benchmark requests to one OpenAI-compatible endpoint. It
// implements backend.Backend and is safe for concurrent use.
type Client struct {
	cfg     Config
	url     string
	http    *http.Client
	tr      *http.Transport
	header  http.Header // base headers, cloned per request
	timeout time.Duration
	bufs    sync.Pool // *[]byte read buffers
	colls   sync.Pool // *stream.Collector
	// poster sends the benchmark requests: as bytes through the h1
	// transport when it can, else through http.
	poster  *h1.Poster
	budget  *stream.Budget
	secrets *redact.Redactor // API key and header values
}

var (
	_ backend.Backend = (*Client)(nil)
	_ backend.Bounder = (*Client)(nil)
)

// CheckURL reports whether apiURL suits api, with vLLM's rule (the URL must
// end with "completions" or "chat/completions") plus a check that it is an
// absolute http(s) URL.
func CheckURL(api API, apiURL string) error {
	u, err := url.Parse(apiURL)
	if err != nil {
		return fmt.Errorf("invalid API URL %q: %v", apiURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid API URL %q: want an http:// or https:// URL with a host", apiURL)
	}
	switch api {
	case Chat:
		if !strings.HasSuffix(apiURL, "chat/completions") {
			return fmt.Errorf("OpenAI Chat Completions API URL must end with 'chat/completions' (got %q; use --endpoint /v1/chat/completions)", apiURL)
		}
	default:
		if !strings.HasSuffix(apiURL, "completions") {
			return fmt.Errorf("OpenAI Completions API URL must end with 'completions' (got %q)", apiURL)
		}
	}
	return nil
}

// NewTransport returns the HTTP transport the Client uses: HTTP/1.1 with
// keep-alive, proxies from the environment, no transparent decompression,
// pool sized by maxConcurrency (see Config.MaxConcurrency).
func NewTransport(maxConcurrency int, insecure bool) *http.Transport {
	idle := 1024
	if maxConcurrency > 0 {
		idle = maxConcurrency
	}
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:        0, // no global limit; the per-host ones apply
		MaxIdleConnsPerHost: idle,
		MaxConnsPerHost:     max(maxConcurrency, 0),
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 30 * time.Second,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: insecure}, //nolint:gosec // user asked for --insecure
		// An empty TLSNextProto map keeps HTTPS on HTTP/1.1, like aiohttp.
		TLSNextProto:       map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableCompression: true, // gzip would delay chunks inside the decompressor
	}
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if err := CheckURL(cfg.API, cfg.URL); err != nil {
		return nil, err
	}
	if cfg.MaxConcurrency < 0 {
		return nil, fmt.Errorf("max concurrency must be >= 0, got %d", cfg.MaxConcurrency)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("request timeout must be >= 0, got %v", cfg.Timeout)
	}
	if cfg.MaxResponseBytes < 0 || cfg.MaxTotalResponseBytes < 0 {
		return nil, fmt.Errorf("response size limits must be >= 0, got %d and %d", cfg.MaxResponseBytes, cfg.MaxTotalResponseBytes)
	}
	h := make(http.Header)
	h.Set("Content-Type", "application/json")
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+string(cfg.APIKey))
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = "llmbench"
	}
	h.Set("User-Agent", ua)
	for _, kv := range cfg.Headers {
		if kv.Key == "" {
			return nil, errors.New("empty header name")
		}
		h.Set(kv.Key, kv.Value)
	}
	tr := NewTransport(cfg.MaxConcurrency, cfg.Insecure)
	direct := h1.New(tr, tr.MaxIdleConnsPerHost)
	c := &Client{
		cfg:    cfg,
		url:    cfg.URL,
		tr:     tr,
		header: h,
		http: &http.Client{
			Transport: direct,
			// Report redirects instead of following them: a POST that gets
			// redirected is a misconfigured URL, not something to time.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		timeout: cfg.Timeout,
		budget:  stream.NewBudget(cfg.MaxTotalResponseBytes),
		secrets: secretsOf(cfg.APIKey, h, cfg.Headers),
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	var err error
	if c.poster, err = h1.NewPoster(c.http, cfg.URL, h, c.timeout); err != nil {
		return nil, fmt.Errorf("invalid API URL %q: %v", cfg.URL, err)
	}
	n := cfg.ReadBufferBytes
	if n <= 0 {
		n = 1024
	}
	c.bufs.New = func() any { b := make([]byte, n); return &b }
	c.colls.New = func() any { return new(stream.Collector) }
	return c, nil
}

// secretsOf is what a server must not echo into our output: the API key,
// the Authorization value and every --header value (any of them may carry
// a credential).
func secretsOf(key Secret, h http.Header, extra []Header) *redact.Redactor {
	s := []string{string(key), h.Get("Authorization")}
	for _, kv := range extra {
		s = append(s, kv.Value)
	}
	return redact.New(s...)
}

// Secrets returns the redactor of the client's credentials, for text from
// the same server obtained elsewhere (side calls, the ready check).
func (c *Client) Secrets() *redact.Redactor { return c.secrets }

// redactFailure removes the client's secrets from what the server put in a
// failed response: the error message and the text generated before it.
func (c *Client) redactFailure(resp *backend.Response) {
	if resp.Err == nil {
		return
	}
	resp.Err = c.secrets.Error(resp.Err)
	resp.Text = c.secrets.String(resp.Text)
	resp.FinishReason = c.secrets.String(resp.FinishReason)
}

// Close closes idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// HTTPClient returns the client's *http.Client (shared transport), for
// side requests such as ListModels against the same server.
func (c *Client) HTTPClient() *http.Client { return c.http }

// Body returns the exact JSON body Send would post for req.
func (c *Client) Body(req *backend.Request) ([]byte, error) {
	return BuildBody(c.cfg.API, c.cfg.Logprobs, req)
}

// Bounds reports whether the client's request timeout is at most t
// (backend.Bounder): Send bounds every request by it (h1.Poster).
func (c *Client) Bounds(t time.Duration) bool { return c.timeout <= t }

// Send posts req and streams the answer into resp; see backend.Backend.
// resp.Start is read immediately before the request is written; each token
// chunk is stamped with time.Now() taken when the body read that completed
// it returned.
func (c *Client) Send(ctx context.Context, req *backend.Request, resp *backend.Response) {
	defer c.redactFailure(resp)
	ex, ok := c.post(ctx, req, resp)
	if !ok {
		return
	}
	defer ex.Close()
	c.stream(ex.Context(), req, ex.Resp.Body, resp)
}

// post sends req and returns the exchange to stream, or false with resp
// holding the failure. Not inlined: its request-building locals are gone
// from the stack while the answer streams; with storeRecord's, a parked
// stream's stack is 1.9 KB, not 2.8, for each collection to scan
// (BENCHMARKS.md#parked-stacks).
//
//go:noinline
func (c *Client) post(ctx context.Context, req *backend.Request, resp *backend.Response) (h1.Exchange, bool) {
	body, err := BuildBody(c.cfg.API, c.cfg.Logprobs, req)
	if err != nil {
		resp.Err, resp.ErrClass = fmt.Errorf("building request body: %w", err), record.ErrOther
		return h1.Exchange{}, false
	}
	ex, err := c.poster.Post(ctx, body, req.ID, &resp.Start)
	if err != nil {
		resp.ErrClass, resp.Err = transportError(ex.Context(), err, "sending request")
		ex.Close()
		return h1.Exchange{}, false
	}
	resp.HTTPStatus = ex.Resp.StatusCode
	if ex.Resp.StatusCode != http.StatusOK {
		resp.ErrClass, resp.Err = statusError(ex.Resp, c.secrets)
		ex.Close()
		return h1.Exchange{}, false
	}
	return ex, true
}

// stream reads the answer's body into resp through a pooled collector.
func (c *Client) stream(ctx context.Context, req *backend.Request, body io.Reader, resp *backend.Response) {
	coll := c.collector(req, resp)
	defer func() { coll.Reset(nil); c.colls.Put(coll) }()
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	buf := *bp
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			if coll.Feed(buf[:n], time.Now()) != nil {
				return // recorded as malformed_stream by the collector
			}
		}
		if rerr == io.EOF {
			coll.Finish(time.Now())
			return
		}
		if rerr != nil {
			coll.Fail(transportError(ctx, rerr, fmt.Sprintf("reading stream after %d token chunks", coll.Tokens())))
			return
		}
	}
}

// collector takes a pooled collector and starts it for req. Not inlined:
// the setup's stream.Options is not on the stack while the answer streams
// (BENCHMARKS.md#parked-stacks).
//
//go:noinline
func (c *Client) collector(req *backend.Request, resp *backend.Response) *stream.Collector {
	coll := c.colls.Get().(*stream.Collector)
	coll.Start(resp, c.cfg.API.Format(), stream.Options{Framing: stream.FramingSSE, MaxTokens: req.MaxTokens,
		Meter: stream.Meter{Max: c.cfg.MaxResponseBytes, Budget: c.budget}})
	return coll
}
