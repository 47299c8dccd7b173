package prepare

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/redact"
)

// probeTimeout bounds the connection probe before a run.
const probeTimeout = 5 * time.Second

// probeServer opens (and closes) one TCP connection to the server of
// baseURL, so a wrong port or a server that is not running fails in a
// second with one line, before prompts are built and requests sent. An
// interrupt returns the context's error (the caller names it).
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
			return ctx.Err()
		}
		return fmt.Errorf("cannot connect to %s (%s): is the server running? check --base-url (or --host/--port), or pass --ready-check-timeout-sec to wait for it", redact.URL(baseURL), dialReason(err))
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
