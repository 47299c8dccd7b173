package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/h1"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// transportError classifies an error from the HTTP client or a body read.
func transportError(ctx context.Context, err error, doing string) (class string, _ error) {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return record.ErrCanceled, fmt.Errorf("%s: canceled", doing)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return record.ErrTimeout, fmt.Errorf("%s: request timed out: %w", doing, err)
	case errors.As(err, &ne) && ne.Timeout():
		return record.ErrTimeout, fmt.Errorf("%s: %w", doing, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return record.ErrStreamTruncated, fmt.Errorf("%s: connection closed mid-stream: %w", doing, err)
	case errors.Is(err, syscall.ECONNRESET) && !errors.As(err, new(*url.Error)):
		// A reset while the body streams, after the head: the stream was
		// cut, as by a close. Which of the two the client sees depends on
		// TLS and timing, not on the server: a TLS server's close sends
		// close_notify before its reset, which net/http reads as an EOF
		// (docs/transport.md). A reset before any answer fails the
		// request (the send's errors are *url.Error, as http.Client's).
		return record.ErrStreamTruncated, fmt.Errorf("%s: connection reset mid-stream: %w", doing, err)
	case h1.HeadTooLarge(err):
		return record.ErrResponseTooLarge, fmt.Errorf("%s: %w", doing, err)
	case h1.FramingError(err):
		// The server is up and answering, in a framing no HTTP/1.1 client
		// reads: not a connection failure (docs/transport.md).
		return record.ErrMalformedStream, fmt.Errorf("%s: %w", doing, err)
	}
	return record.ErrConnection, fmt.Errorf("%s: %w", doing, err)
}

// statusError describes a non-200 answer: status line plus the start of the
// body with secrets redacted, on one line.
func statusError(r *http.Response, secrets *redact.Redactor) (class string, _ error) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, backend.ErrorBodyRead))
	text := backend.ErrorText(secrets.String(strings.ToValidUTF8(string(b), "\uFFFD")))
	status := r.Status
	if status == "" {
		status = fmt.Sprintf("%d %s", r.StatusCode, http.StatusText(r.StatusCode))
	}
	msg := "HTTP " + status
	if r.StatusCode == http.StatusNotFound && r.Request != nil && r.Request.URL != nil {
		// A 404 is most often a wrong --endpoint or --base-url: name it.
		msg += " from " + r.Request.URL.Redacted()
	}
	if loc := r.Header.Get("Location"); loc != "" && r.StatusCode/100 == 3 {
		msg += " (redirect to " + loc + "; check --base-url/--endpoint)"
	}
	if text != "" {
		msg += ": " + text
	}
	class = record.ErrOther
	switch {
	case r.StatusCode == http.StatusTooManyRequests:
		class = record.ErrHTTP429
	case r.StatusCode >= 400 && r.StatusCode < 500:
		class = record.ErrHTTP4xx
	case r.StatusCode >= 500 && r.StatusCode < 600:
		class = record.ErrHTTP5xx
	}
	return class, errors.New(msg)
}
