// Package proxy is a SageMaker Runtime emulator in front of any
// OpenAI-compatible server (vLLM, TGI, the simulator): it answers
// InvokeEndpoint and InvokeEndpointWithResponseStream by forwarding the body
// to the upstream server and re-wrapping the upstream's response bytes as
// AWS event-stream PayloadParts of a chosen size, so that a SageMaker client
// can be checked against the same server's direct HTTP path.
//
// Bytes are forwarded as they arrive: each upstream read becomes one or
// more PayloadParts, flushed at once. The proxy never parses or buffers a
// streamed response. It does not sign, authenticate or throttle.
package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// Routes for Config.Route.
const (
	// RouteAuto sends a body with "messages" to /v1/chat/completions and
	// any other body to /v1/completions, as vLLM's /invocations does.
	RouteAuto = "auto"
)

// Config configures a Proxy.
type Config struct {
	// Upstream is the OpenAI-compatible server's base URL, e.g.
	// http://127.0.0.1:8000 (a path prefix such as /api is kept).
	Upstream string
	// Route is RouteAuto or a fixed upstream path for every invocation
	// (e.g. "/invocations" for a SageMaker container run locally).
	Route string
	// PartSize is where PayloadPart boundaries fall (zero = 4096 bytes).
	PartSize eventstream.PartSize
	// Seed drives random part sizes.
	Seed uint64
	// Header holds extra headers for upstream requests (e.g.
	// Authorization).
	Header http.Header
	// Client sends upstream requests; nil = a client with its own
	// transport sized for many concurrent streams and no overall timeout
	// (the caller's request context bounds each stream).
	Client *http.Client
}

// Proxy is the emulator's http.Handler.
type Proxy struct {
	cfg      Config
	base     *url.URL
	client   *http.Client
	mux      *http.ServeMux
	requests atomic.Uint64
}

// maxBody is SageMaker's request and InvokeEndpoint response limit.
const maxBody = 6 << 20

// New checks cfg and returns a Proxy.
func New(cfg Config) (*Proxy, error) {
	// Errors never echo the URL as given: it may carry a password.
	u, err := url.Parse(cfg.Upstream)
	if err != nil {
		return nil, errors.New("upstream: not a valid URL; want an http:// or https:// base URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream (scheme %q, host %q): want an http:// or https:// base URL", u.Scheme, u.Host)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if cfg.Route == "" {
		cfg.Route = RouteAuto
	}
	if cfg.Route != RouteAuto && !strings.HasPrefix(cfg.Route, "/") {
		return nil, fmt.Errorf("route %q: want %q or a path starting with /", cfg.Route, RouteAuto)
	}
	p := &Proxy{cfg: cfg, base: u, client: cfg.Client}
	if p.client == nil {
		p.client = &http.Client{Transport: &http.Transport{
			Proxy:               nil, // never route loopback checks through an HTTP proxy
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 1024,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /endpoints/{name}/invocations-response-stream", p.handle(true))
	mux.HandleFunc("POST /endpoints/{name}/invocations", p.handle(false))
	mux.HandleFunc("GET /ping", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		eventstream.APIError{Status: http.StatusNotFound, Code: "UnknownOperationException",
			Message: "no SageMaker Runtime operation at " + r.Method + " " + r.URL.Path}.Write(w)
	})
	p.mux = mux
	return p, nil
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.mux.ServeHTTP(w, r) }

// Requests reports how many invocations the proxy has received.
func (p *Proxy) Requests() uint64 { return p.requests.Load() }

// upstreamPath picks the upstream path for body.
func (p *Proxy) upstreamPath(body []byte) (string, error) {
	if p.cfg.Route != RouteAuto {
		return p.cfg.Route, nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil || probe == nil {
		return "", errors.New("request body is not a JSON object")
	}
	if _, ok := probe["messages"]; ok {
		return "/v1/chat/completions", nil
	}
	return "/v1/completions", nil
}

func (p *Proxy) handle(stream bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := p.requests.Add(1)
		name := r.PathValue("name")
		if e, bad := eventstream.EndpointNameError(name); bad {
			e.Write(w)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			eventstream.ValidationError("reading request body: " + err.Error()).Write(w)
			return
		}
		if len(body) > maxBody {
			eventstream.ValidationError(fmt.Sprintf("Request body is larger than %d bytes.", maxBody)).Write(w)
			return
		}
		path, err := p.upstreamPath(body)
		if err != nil {
			// What vLLM's /invocations answers, wrapped by SageMaker.
			eventstream.ModelError(name, http.StatusBadRequest, err.Error()).Write(w)
			return
		}
		resp, err := p.send(r, path, body)
		if err != nil {
			if r.Context().Err() != nil {
				return // the client left
			}
			// The container could not be reached: SageMaker reports a
			// failed dependency. 502 marks "no answer" in OriginalStatusCode.
			eventstream.ModelError(name, http.StatusBadGateway, "upstream: "+err.Error()).Write(w)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			eventstream.ModelError(name, resp.StatusCode, string(msg)).Write(w)
			return
		}
		ct := resp.Header.Get("Content-Type")
		if !stream {
			p.whole(w, r, name, ct, resp)
			return
		}
		eventstream.StartStream(w, ct, r.Header.Get("X-Amzn-SageMaker-Inference-Id"))
		ew := eventstream.NewWriter(w, p.cfg.PartSize, p.cfg.Seed^n)
		buf := make([]byte, 32<<10)
		for {
			k, rerr := resp.Body.Read(buf)
			if k > 0 {
				if _, werr := ew.Write(buf[:k]); werr != nil {
					return // the client left; closing resp.Body cancels upstream
				}
			}
			if rerr == io.EOF {
				return
			}
			if rerr != nil {
				if r.Context().Err() != nil {
					return
				}
				// The container's connection broke mid-stream: SageMaker
				// sends ModelStreamError with ErrorCode StreamBroken.
				_ = ew.WriteException(eventstream.ModelStreamError, eventstream.CodeStreamBroken,
					"The stream from the model container broke: "+rerr.Error())
				return
			}
		}
	}
}

// send forwards body to the upstream path with the client's context.
func (p *Proxy) send(r *http.Request, path string, body []byte) (*http.Response, error) {
	u := *p.base
	u.Path += path
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range p.cfg.Header {
		req.Header[k] = v
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	if a := r.Header.Get("X-Amzn-SageMaker-Accept"); a != "" {
		req.Header.Set("Accept", a)
	} else if a := r.Header.Get("Accept"); a != "" && !strings.Contains(a, "eventstream") {
		req.Header.Set("Accept", a)
	}
	if id := r.Header.Get("X-Amzn-SageMaker-Inference-Id"); id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	return p.client.Do(req)
}

// whole answers InvokeEndpoint: the upstream body in one response.
func (p *Proxy) whole(w http.ResponseWriter, r *http.Request, name, ct string, resp *http.Response) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if r.Context().Err() == nil {
			eventstream.ModelError(name, http.StatusBadGateway, "upstream: "+err.Error()).Write(w)
		}
		return
	}
	if len(b) > maxBody {
		eventstream.ModelError(name, http.StatusOK, fmt.Sprintf("response body is larger than %d bytes", maxBody)).Write(w)
		return
	}
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Amzn-Invoked-Production-Variant", "AllTraffic")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// Running is a proxy serving on a listener.
type Running struct {
	// Proxy is the handler.
	Proxy *Proxy
	// Addr is host:port; URL is "http://" + Addr.
	Addr, URL string
	srv       *http.Server
}

// Start serves a new proxy on ln (which it then owns) until Stop.
func Start(cfg Config, ln net.Listener) (*Running, error) {
	p, err := New(cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	run := &Running{Proxy: p, Addr: ln.Addr().String(), URL: "http://" + ln.Addr().String(),
		srv: &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}}
	go func() { _ = run.srv.Serve(ln) }()
	return run, nil
}

// Stop shuts down gracefully, waiting for open streams until ctx is done,
// then closes what is left.
func (r *Running) Stop(ctx context.Context) error {
	err := r.srv.Shutdown(ctx)
	if err != nil {
		_ = r.srv.Close()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil
		}
	}
	return err
}
