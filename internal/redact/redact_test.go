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

// BenchmarkStringAnswer: the cost of cleaning one successful answer
// (about 2 KiB of generated text, ellipses included), once per request.
func BenchmarkStringAnswer(b *testing.B) {
	r := New("sk-proj-7f3a9c0d2b11aa", "Bearer sk-proj-7f3a9c0d2b11aa", "tok-91d8e5aa40")
	text := strings.Repeat(" the quick brown fox jumps over the lazy dog...", 45)
	for _, tc := range []struct{ name, text string }{
		{"clean", text},
		{"echo", text + " sk-proj-7f3a9c0d2b11aa"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				_ = r.String(tc.text)
			}
		})
	}
}

// TestStringEllipses: tails cut by several ellipses in one text, and
// text that needs nothing, which comes back as is.
func TestStringEllipses(t *testing.T) {
	t.Parallel()
	r := New("sk-live-123456")
	for _, tc := range []struct{ in, want string }{
		{"a sk-li... b sk-live-1... c", "a [REDACTED]... b [REDACTED]... c"},
		{`x "sk-live"... y ... z sk-l...`, `x "[REDACTED]"... y ... z [REDACTED]...`},
		{"... sk-live-123456 ...", "... [REDACTED] ..."},
		{"nothing... to hide...", "nothing... to hide..."},
		{"sk-l......", "[REDACTED]......"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
