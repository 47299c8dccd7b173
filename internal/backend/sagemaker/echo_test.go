package sagemaker

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/nettest"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/llmbench/llmbench/internal/redact"
)

const (
	echoSession = "FwoGZXIvYXdzEXAMPLEsessiontoken0123456789"
	echoAttrs   = "tenant=acme;secret=a1b2c3d4e5"
)

// TestSendRedactsEchoedSecrets: the access key id, the session token and
// the custom attributes that a container echoes back — in a ModelError
// before the stream, in an in-stream error, in text before a cut — never
// reach the response's error or text.
func TestSendRedactsEchoedSecrets(t *testing.T) {
	scenarios := map[string]scenario{
		// Only the first backend.ErrorBodyBytes of a message are shown: the
		// secret-bearing headers come first, so that they are shown
		// (redacted), not cut away.
		"model-error-echo": func(w http.ResponseWriter, r *http.Request, _ []byte, _ <-chan struct{}) {
			first := r.Header.Get("X-Amzn-Sagemaker-Custom-Attributes") + "; " + r.Header.Get("X-Amz-Security-Token") + "; " +
				r.Header.Get("Authorization") + "; "
			writeAPIError(w, 424, "ModelError", "Received client error (400) from primary with message \""+first+nettest.EchoHeaders(r)+"\"")
		},
		"stream-error-echo": func(w http.ResponseWriter, r *http.Request, _ []byte, _ <-chan struct{}) {
			fw := startStream(w)
			fw.part([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
			fw.exception("ModelStreamError", "Echo", nettest.EchoHeaders(r))
		},
		"text-then-cut": func(w http.ResponseWriter, r *http.Request, _ []byte, _ <-chan struct{}) {
			fw := startStream(w)
			fw.part(fmt.Appendf(nil, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", nettest.EchoHeaders(r)))
		},
	}
	f := newFakeSM(t, false)
	for name, s := range scenarios {
		f.on(name, s)
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(f, name, FormatOpenAIChat)
			cfg.CustomAttributes = echoAttrs
			cfg.AWS.credentials = credentials.NewStaticCredentialsProvider(testAKID, testSecret, echoSession)
			b, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			resp := send(t, b, context.Background())
			if resp.Err == nil {
				t.Fatal("success")
			}
			out := resp.Err.Error() + "\n" + resp.Text
			for _, secret := range []string{testAKID, echoSession, echoAttrs} {
				if strings.Contains(out, secret) {
					t.Errorf("secret %q leaks:\n%s", secret, out)
				}
			}
			if !strings.Contains(out, redact.Mask) {
				t.Errorf("nothing redacted: %s", out)
			}
		})
	}
}
