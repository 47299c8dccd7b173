package redact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	r := New("Bearer sk-live-123456", "attr=secret/value&x", "abc", "")
	for _, tc := range []struct{ in, want string }{
		{"Authorization: Bearer sk-live-123456", "Authorization: [REDACTED]"},      // the header value whole
		{`{"auth":"sk-live-123456"}`, `{"auth":"[REDACTED]"}`},                     // the Bearer value alone
		{`{"h":"attr=secret\/value\u0026x"}`, `{"h":"attr=secret\/value\u0026x"}`}, // not a form Go or Python emits by default
		{`{"h":"attr=secret/value\u0026x"}`, `{"h":"[REDACTED]"}`},                 // JSON-escaped as Go does
		{"q=attr%3Dsecret%2Fvalue%26x", "q=[REDACTED]"},                            // URL-escaped
		{"abc is too short to hide", "abc is too short to hide"},                   // below MinLen
		{"twice: sk-live-123456 sk-live-123456", "twice: [REDACTED] [REDACTED]"},
		{`body: "Bearer sk-liv"...`, `body: "[REDACTED]"...`}, // cut by an ellipsis
		{"x sk-l... y", "x [REDACTED]... y"},                  // MinLen bytes of it
		{"x sk-... y", "x sk-... y"},                          // fewer: left alone
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	r := New("AKIDSECRET1")
	plain := errors.New("no secret here")
	if got := r.Error(plain); got != plain {
		t.Errorf("an error without secrets was replaced: %v", got)
	}
	err := r.Error(fmt.Errorf("echo AKIDSECRET1: %w", context.Canceled))
	if strings.Contains(err.Error(), "AKIDSECRET1") || !errors.Is(err, context.Canceled) {
		t.Errorf("Error = %v (Is Canceled: %v)", err, errors.Is(err, context.Canceled))
	}
	if r.Error(nil) != nil {
		t.Error("nil error became non-nil")
	}
	var none *Redactor
	if none.String("x AKIDSECRET1") != "x AKIDSECRET1" {
		t.Error("nil Redactor changed text")
	}
}

func TestAddConcurrent(t *testing.T) {
	t.Parallel()
	r := New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			r.Add(fmt.Sprintf("secret-%03d", i))
		}
	}()
	for range 100 {
		_ = r.String("secret-050 and secret-099")
	}
	<-done
	if got := r.String("secret-050 and secret-099"); got != "[REDACTED] and [REDACTED]" {
		t.Errorf("got %q", got)
	}
}
