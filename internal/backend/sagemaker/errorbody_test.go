package sagemaker

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// countingClient counts the response body bytes its caller reads.
type countingClient struct {
	inner aws.HTTPClient
	read  atomic.Int64
}

func (c *countingClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.inner.Do(req)
	if err == nil {
		resp.Body = &countingBody{resp.Body, &c.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// hugeBody answers status with a body of size bytes of 'z' (not an AWS
// error document), written until the client stops reading.
func hugeBody(status, size int, header http.Header) scenario {
	return func(w http.ResponseWriter, r *http.Request, _ []byte, done <-chan struct{}) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(status)
		blk := bytes.Repeat([]byte("z"), 64<<10)
		for sent := 0; sent < size; sent += len(blk) {
			if _, err := w.Write(blk[:min(len(blk), size-sent)]); err != nil {
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}
}

// hugeJSON answers status with an error document of about size bytes:
// {"message":"xxx..."}, no X-Amzn-ErrorType header.
func hugeJSON(status, size int) scenario {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte, _ <-chan struct{}) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(`{"message":"` + strings.Repeat("x", size) + `"}`))
	}
}

// TestErrorBodyBounded: a non-2xx answer is read up to backend.ErrorBodyRead
// bytes, however long its body (hostile2's huge429 sends 64 MiB, and 50
// such requests in flight took 4.3 GB), and is still filed by its status
// or by its X-Amzn-ErrorType header when the cut body no longer decodes;
// a long server message is redacted, then cut to backend.ErrorBodyBytes.
func TestErrorBodyBounded(t *testing.T) {
	long := func(at int) string {
		return strings.Repeat("m", at) + " " + testSecret + " " + strings.Repeat("n", 400)
	}
	tests := []struct {
		name   string
		s      scenario
		class  string
		status int
	}{
		// 64 MiB of 'z': the OpenAI path reads 16 KiB of it.
		{"huge-429", hugeBody(429, 64<<20, nil), record.ErrHTTP429, 429},
		{"huge-502", hugeBody(502, 64<<20, http.Header{"Content-Type": {"text/html"}}), record.ErrHTTP5xx, 502},
		// An error document longer than backend.ErrorBodyRead: cut, it no longer
		// decodes, and the header still names the code.
		{"huge-throttle", hugeBody(400, 1<<20, http.Header{"X-Amzn-Errortype": {"ThrottlingException:http://internal.amazon.com/coral/"}}),
			ClassThrottling, 400},
		// A JSON document cut at backend.ErrorBodyRead ends in an unexpected EOF:
		// still the status' class, not connection (hostile2's echo401).
		{"huge-json-401", hugeJSON(401, 1<<20), record.ErrHTTP4xx, 401},
		// A body cut short by the server: the status was answered.
		{"reset-in-500-body", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ <-chan struct{}) {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(500)
			w.Write([]byte(`{"message":"`))
			w.(http.Flusher).Flush()
			hijackClose(w, true)
		}, record.ErrHTTP5xx, 500},
		{"long-message", apiError(400, "ValidationError", long(180)), "ValidationError", 400},
		// Redacted before the cut: no first half of the secret is left.
		{"long-message-secret-at-cut", apiError(400, "ValidationError", long(190)), "ValidationError", 400},
	}
	f := newFakeSM(t, false)
	for _, tt := range tests {
		f.on(tt.name, tt.s)
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBackend(t, f, tt.name, FormatOpenAIChat)
			rc := b.aws.HTTPClient.(*readOnlyBodyClient)
			counter := &countingClient{inner: rc.inner}
			rc.inner = counter
			began := time.Now()
			resp := send(t, b, context.Background())
			t.Logf("%s after %v, %d bytes read: %.400v", resp.ErrClass, time.Since(began), counter.read.Load(), resp.Err)
			if resp.Err == nil {
				t.Fatal("Send succeeded")
			}
			if n := counter.read.Load(); n > backend.ErrorBodyRead {
				t.Errorf("read %d bytes of the error body, want at most %d", n, backend.ErrorBodyRead)
			}
			if resp.ErrClass != tt.class || resp.HTTPStatus != tt.status {
				t.Errorf("class %q status %d, want %q %d", resp.ErrClass, resp.HTTPStatus, tt.class, tt.status)
			}
			msg := resp.Err.Error()
			if strings.Contains(msg, testSecret[:8]) || strings.Contains(msg, strings.Repeat("n", 50)) {
				t.Errorf("message not redacted and cut: %.600s", msg)
			}
			if strings.HasPrefix(tt.name, "long-message") && (!strings.HasSuffix(msg, "...") || !strings.Contains(msg, redact.Mask[:len(redact.Mask)-2])) {
				t.Errorf("long message: want its redacted start and \"...\": %.600s", msg)
			}
		})
	}
}
