package sagemaker

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// apiError is a scenario answering with an error before the stream.
func apiError(status int, code, msg string) scenario {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte, _ <-chan struct{}) {
		writeAPIError(w, status, code, msg)
	}
}

// redirect is a scenario answering status with a Location on the same
// fake (an endpoint that would succeed, were it followed) and a body that
// echoes the request's Authorization header.
func redirect(status int) scenario {
	return func(w http.ResponseWriter, r *http.Request, _ []byte, _ <-chan struct{}) {
		w.Header().Set("Location", "/endpoints/redirect-target/invocations-response-stream")
		w.WriteHeader(status)
		w.Write([]byte("moved: " + r.Header.Get("Authorization")))
	}
}

// partsThen sends the first n 7-byte parts of a chat stream, then calls
// after (which may write more frames or cut the connection).
func partsThen(n int, after func(w http.ResponseWriter, fw *frameWriter, r *http.Request, done <-chan struct{})) scenario {
	payload := vllmChatSSE(streamSpec{tokens: testTokens, finish: "stop", promptTokens: 3, usage: true, done: true})
	return func(w http.ResponseWriter, r *http.Request, _ []byte, done <-chan struct{}) {
		fw := startStream(w)
		for _, p := range fixedSplit(7)(payload)[:n] {
			fw.part(p)
		}
		after(w, fw, r, done)
	}
}

// stall blocks until the client gives up or the test ends.
func stall(_ http.ResponseWriter, _ *frameWriter, r *http.Request, done <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-done:
	}
}

// TestErrorClasses injects every failure kind and checks that each gets its
// own class, that throttling and timeouts stay distinct, that nothing is
// retried (even with AWS_MAX_ATTEMPTS=5 in the environment) and that what
// arrived before a mid-stream failure is kept.
func TestErrorClasses(t *testing.T) {
	t.Setenv("AWS_MAX_ATTEMPTS", "5")
	t.Setenv("AWS_RETRY_MODE", "standard")
	tests := []struct {
		name       string
		s          scenario
		ctxTimeout time.Duration
		readIdle   time.Duration
		class      string
		status     int
		chunks     bool // token chunks arrived before the failure
	}{
		{"throttling-400", apiError(400, "ThrottlingException", "Rate exceeded"), 0, 0, ClassThrottling, 400, false},
		{"throttling-429", apiError(429, "ThrottlingException", "Rate exceeded"), 0, 0, ClassThrottling, 429, false},
		{"bare-429", apiError(429, "", "Too Many Requests"), 0, 0, record.ErrHTTP429, 429, false},
		{"model-not-ready", apiError(429, "ModelNotReadyException", "Model is loading"), 0, 0, ClassModelNotReady, 429, false},
		{"model-error", apiError(424, "ModelError", "Received server error (500) from primary with message \"boom\""), 0, 0, ClassModelError, 424, false},
		{"validation", apiError(400, "ValidationError", "Endpoint x not found."), 0, 0, "ValidationError", 400, false},
		{"service-unavailable", apiError(503, "ServiceUnavailable", "try later"), 0, 0, "ServiceUnavailable", 503, false},
		{"internal-failure", apiError(500, "InternalFailure", "oops"), 0, 0, "InternalFailure", 500, false},
		{"access-denied", apiError(403, "AccessDeniedException", "not authorized to perform sagemaker:InvokeEndpoint"), 0, 0, "AccessDeniedException", 403, false},
		{"bare-500", apiError(500, "", "oops"), 0, 0, record.ErrHTTP5xx, 500, false},
		// A redirect is reported, never followed, and filed as README's
		// error classes say: other, not malformed_stream (its body is no
		// AWS error document).
		{"redirect-307", redirect(307), 0, 0, record.ErrOther, 307, false},
		{"redirect-308", redirect(308), 0, 0, record.ErrOther, 308, false},
		// A proxy's error page is filed by its status.
		{"html-502", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			w.Write([]byte("<html><body>Bad Gateway</body></html>"))
		}, 0, 0, record.ErrHTTP5xx, 502, false},
		{"model-stream-error", partsThen(60, func(_ http.ResponseWriter, fw *frameWriter, _ *http.Request, _ <-chan struct{}) {
			fw.exception("ModelStreamError", "StreamBroken", "The stream between SageMaker and the model was broken.")
		}), 0, 0, "ModelStreamError:StreamBroken", 200, true},
		{"model-stream-timeout", partsThen(60, func(_ http.ResponseWriter, fw *frameWriter, _ *http.Request, _ <-chan struct{}) {
			fw.exception("ModelStreamError", "ModelInvocationTimeExceeded", "Your model primary did not complete sending the inference response in the allotted time.")
		}), 0, 0, "ModelStreamError:ModelInvocationTimeExceeded", 200, true},
		{"internal-stream-failure", partsThen(60, func(_ http.ResponseWriter, fw *frameWriter, _ *http.Request, _ <-chan struct{}) {
			fw.exception("InternalStreamFailure", "", "The stream processing failed because of an unknown error, exception or failure. Try your request again.")
		}), 0, 0, ClassInternalStreamFailure, 200, true},
		{"error-frame", partsThen(60, func(_ http.ResponseWriter, fw *frameWriter, _ *http.Request, _ <-chan struct{}) {
			fw.errorFrame("InternalError", "something broke")
		}), 0, 0, "InternalError", 200, true},
		{"disconnect-between-frames", partsThen(60, func(w http.ResponseWriter, _ *frameWriter, _ *http.Request, _ <-chan struct{}) {
			hijackClose(w, false)
		}), 0, 0, record.ErrStreamTruncated, 200, true},
		{"disconnect-inside-frame", partsThen(60, func(w http.ResponseWriter, _ *frameWriter, _ *http.Request, _ <-chan struct{}) {
			frame := encodePart([]byte(`data: {"choices":[{"delta":{"content":"x"}}]}`))
			w.Write(frame[:len(frame)/2])
			w.(http.Flusher).Flush()
			hijackClose(w, false)
		}), 0, 0, record.ErrStreamTruncated, 200, true},
		{"connection-reset", partsThen(60, func(w http.ResponseWriter, _ *frameWriter, _ *http.Request, _ <-chan struct{}) {
			time.Sleep(20 * time.Millisecond) // let the client read the parts first
			hijackClose(w, true)
		}), 0, 0, record.ErrConnection, 200, true},
		{"bad-crc", partsThen(60, func(w http.ResponseWriter, _ *frameWriter, _ *http.Request, _ <-chan struct{}) {
			frame := encodePart([]byte("data: {}\n\n"))
			frame[len(frame)-6] ^= 0xff // corrupt the payload
			w.Write(frame)
			w.(http.Flusher).Flush()
		}), 0, 0, record.ErrMalformedStream, 200, true},
		{"stall-ctx-deadline", partsThen(60, stall), 300 * time.Millisecond, 0, record.ErrTimeout, 200, true},
		{"stall-read-idle", partsThen(60, stall), 0, 200 * time.Millisecond, ClassReadIdleTimeout, 200, true},
		{"slow-headers-ctx-deadline", func(w http.ResponseWriter, r *http.Request, _ []byte, done <-chan struct{}) {
			stall(w, nil, r, done)
		}, 200 * time.Millisecond, 0, record.ErrTimeout, 0, false},
	}
	f := newFakeSM(t, false)
	f.on("redirect-target", streamParts(vllmChatSSE(streamSpec{tokens: testTokens, finish: "stop", usage: true, done: true}), fixedSplit(64), 0))
	for _, tt := range tests {
		f.on(tt.name, tt.s)
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(f, tt.name, FormatOpenAIChat)
			cfg.AWS.ReadTimeout = tt.readIdle
			cfg.CustomAttributes = "secret-attr=1"
			b, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.ctxTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxTimeout)
				defer cancel()
			}
			began := time.Now()
			resp := send(t, b, ctx)
			took := time.Since(began)
			t.Logf("%s: %v", resp.ErrClass, resp.Err)
			if resp.Err == nil {
				t.Fatalf("Send succeeded, want class %s", tt.class)
			}
			if resp.ErrClass != tt.class {
				t.Errorf("class = %q, want %q (err: %v)", resp.ErrClass, tt.class, resp.Err)
			}
			if resp.HTTPStatus != tt.status {
				t.Errorf("HTTPStatus = %d, want %d", resp.HTTPStatus, tt.status)
			}
			if got := resp.Chunks.Len() > 0; got != tt.chunks {
				t.Errorf("chunks before failure = %d, want some: %v", resp.Chunks.Len(), tt.chunks)
			}
			if tt.chunks && resp.Text == "" {
				t.Errorf("text received before the failure was dropped")
			}
			if n := f.attemptsFor(tt.name); n != 1 {
				t.Errorf("attempts = %d, want 1 (retries must stay off)", n)
			}
			if n := f.attemptsFor("redirect-target"); n != 0 {
				t.Errorf("a redirect was followed %d times", n)
			}
			if timeout := tt.ctxTimeout + tt.readIdle; timeout > 0 && took > timeout+2*time.Second {
				t.Errorf("took %v for a %v timeout", took, timeout)
			}
			for _, secret := range []string{testSecret, "secret-attr"} {
				if strings.Contains(resp.Err.Error(), secret) {
					t.Errorf("error message leaks a secret: %v", resp.Err)
				}
			}
		})
	}
}

// TestCanceled: a cancelled context is its own class, not a timeout.
func TestCanceled(t *testing.T) {
	f := newFakeSM(t, false)
	f.on("cancel", partsThen(10, stall))
	b := newTestBackend(t, f, "cancel", FormatOpenAIChat)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	resp := send(t, b, ctx)
	if resp.ErrClass != record.ErrCanceled {
		t.Errorf("class = %q, want %q (err %v)", resp.ErrClass, record.ErrCanceled, resp.Err)
	}
}

// TestThrottled: the classes classify gives for throttling, and only
// those, are throttling.
func TestThrottled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		class string
		want  bool
	}{
		{ClassThrottling, true},
		{"TooManyRequestsException", true}, // another AWS throttle code
		{record.ErrHTTP429, true},          // a 429 without an error type
		{ClassModelNotReady, false},        // a 429 while the model loads
		{record.ErrHTTP4xx, false},
		{"ValidationError", false},
		{"", false},
	} {
		if got := Throttled(tc.class); got != tc.want {
			t.Errorf("Throttled(%q) = %v, want %v", tc.class, got, tc.want)
		}
	}
}
