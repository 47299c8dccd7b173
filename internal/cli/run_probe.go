package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/backend/openai"
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
// alike (bench.EndpointError, or every request of a small run). A 404 is
// a wrong --model as often as a wrong path (vLLM answers "The model `x`
// does not exist." with 404): the server's /v1/models tells which.
func (o *runOptions) endpointHint(ctx context.Context, env *Env, plan *bench.Plan, e *bench.EndpointError) string {
	if plan.Kind == bench.SageMaker {
		return " — check --endpoint-name, --region and the credentials"
	}
	where := redactURL(o.baseURL()) + o.f.endpoint
	switch {
	case e.Class == record.ErrConnection:
		return fmt.Sprintf(" — is the server at %s running? check --base-url (or --host/--port)", redactURL(o.baseURL()))
	case e.Status == http.StatusNotFound:
		if hint := o.modelHint(ctx, env, plan); hint != "" {
			return hint
		}
		return fmt.Sprintf(" — %s does not exist: check --endpoint (vLLM serves /v1/completions and /v1/chat/completions) and that --base-url does not end in /v1", where)
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return fmt.Sprintf(" — %s refused the credentials: check OPENAI_API_KEY or --header 'Authorization=Bearer ...'", where)
	}
	return fmt.Sprintf(" — %s rejected the request: check --model, --backend and the request flags", where)
}

// modelHint asks the server's /v1/models whether it serves the model the
// requests named: " — the server does not serve model X; /v1/models
// lists: a, b" when it does not, "" when it does or cannot say.
func (o *runOptions) modelHint(ctx context.Context, env *Env, plan *bench.Plan) string {
	c, ok := plan.Backend.(*openai.Client)
	if !ok || len(plan.Requests) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	models, err := openai.ListModels(ctx, c.HTTPClient(), o.baseURL(), openai.Secret(env.Getenv("OPENAI_API_KEY")))
	if err != nil || len(models) == 0 {
		return ""
	}
	asked := plan.Requests[0].Model
	var ids []string
	for _, m := range models {
		if m.ID == asked {
			return ""
		}
		ids = append(ids, m.ID)
	}
	const most = 10
	list := strings.Join(ids[:min(len(ids), most)], ", ")
	if len(ids) > most {
		list += fmt.Sprintf(", ... (%d in all)", len(ids))
	}
	return fmt.Sprintf(" — the server does not serve model %q; its /v1/models lists: %s (pass one with --model, or leave --model out to take the first)", asked, list)
}
