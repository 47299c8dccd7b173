package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// probeTimeout bounds the connection probe before a run.
const probeTimeout = 5 * time.Second

// probeServer opens (and closes) one TCP connection to the server of
// baseURL, so a wrong port or a server that is not running fails in a
// second with one line, before prompts are built and requests sent.
func probeServer(ctx context.Context, baseURL string) error {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return nil // the client's own URL check reports it
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	d := net.Dialer{Timeout: probeTimeout}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: 130, Msg: "interrupted before the benchmark started; nothing was measured"}
		}
		return fmt.Errorf("cannot connect to %s (%s): is the server running? check --base-url (or --host/--port), or pass --ready-check-timeout-sec to wait for it", redactURL(baseURL), dialReason(err))
	}
	return conn.Close()
}

// dialReason names why a connection failed in a few words.
func dialReason(err error) string {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dnsErr):
		return "no such host"
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return fmt.Sprintf("no answer within %v", probeTimeout)
	}
	return oneLine(err.Error())
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// redactURL drops a password from a URL for messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "the server"
	}
	return u.Redacted()
}

// endpointHint says what to check when the first requests all failed
// alike (bench.EndpointError).
func (o *runOptions) endpointHint(plan *bench.Plan, e *bench.EndpointError) string {
	if plan.Kind == bench.SageMaker {
		return " — check --endpoint-name, --region and the credentials"
	}
	where := redactURL(o.baseURL()) + o.f.endpoint
	switch {
	case e.Class == record.ErrConnection:
		return fmt.Sprintf(" — is the server at %s running? check --base-url (or --host/--port)", redactURL(o.baseURL()))
	case e.Class == record.ErrMalformedStream: // it answers, in a framing or format llmbench cannot read
		return fmt.Sprintf(" — %s answers with a stream that is not HTTP/1.1 OpenAI SSE: check that it is an OpenAI-compatible server and --backend", where)
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf(" — %s does not exist: check --endpoint (vLLM serves /v1/completions and /v1/chat/completions) and that --base-url does not end in /v1", where)
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return fmt.Sprintf(" — %s refused the credentials: check OPENAI_API_KEY or --header 'Authorization=Bearer ...'", where)
	}
	return fmt.Sprintf(" — %s rejected the request: check --model, --backend and the request flags", where)
}
