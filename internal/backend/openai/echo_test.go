package openai

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/nettest"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/redact"
)

const (
	echoKey    = "sk-live-7f3a9c0d2b"
	echoHeader = "X-Api-Token"
	echoValue  = "tok-91d8e5aa40"
)

// TestSendRedactsEchoedSecrets: a server that echoes the request headers
// back (in an error body, in an in-stream error, in generated text before
// a failure, in the model list's error) never gets the API key or a
// --header value into what the backend returns.
func TestSendRedactsEchoedSecrets(t *testing.T) {
	t.Parallel()
	handlers := map[string]http.HandlerFunc{
		"error body, Authorization first": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Authorization: "+r.Header.Get("Authorization")+" "+nettest.EchoHeaders(r), http.StatusUnauthorized)
		},
		"error body, the key cut at 200 bytes": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, strings.Repeat(".", 190)+r.Header.Get("Authorization"), http.StatusForbidden)
		},
		"error body, JSON": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":{"message":"bad key %q","headers":%q}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), nettest.EchoHeaders(r))
		},
		"in-stream error": func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, fmt.Sprintf("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"error\":{\"message\":%q}}\n\ndata: [DONE]\n\n", nettest.EchoHeaders(r)), 7)
		},
		"generated text then a cut": func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, fmt.Sprintf("data: {\"choices\":[{\"text\":%q}]}\n\n", nettest.EchoHeaders(r)), 7)
		},
		"malformed line": func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, "data: "+echoValue+" "+echoKey+"\n\n", 7)
		},
		"malformed line, the key cut at 120 bytes": func(w http.ResponseWriter, r *http.Request) {
			writeSplit(w, "data: {"+strings.Repeat(".", 113)+echoKey+"}\n\n", 7)
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(drained(h))
			defer srv.Close()
			c := newClient(t, srv, Config{APIKey: echoKey, Headers: []Header{{Key: echoHeader, Value: echoValue}}})
			resp := send(t, c, backend.Request{Model: "m", Prompt: "p", MaxTokens: 2})
			if resp.Err == nil {
				t.Fatal("success")
			}
			out := resp.Err.Error() + "\n" + resp.Text
			for _, secret := range []string{echoKey, echoValue, echoKey[:12]} {
				if strings.Contains(out, secret) {
					t.Errorf("secret %q leaks:\n%s", secret, out)
				}
			}
			if !strings.Contains(out, redact.Mask) {
				t.Errorf("nothing redacted in %q", out)
			}
		})
	}
}

func TestListModelsRedactsEcho(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, nettest.EchoHeaders(r), http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, err := ListModels(t.Context(), nil, srv.URL, echoKey)
	if err == nil || strings.Contains(err.Error(), echoKey) || !strings.Contains(err.Error(), redact.Mask) {
		t.Errorf("error = %v", err)
	}
}
