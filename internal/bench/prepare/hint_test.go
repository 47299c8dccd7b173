package prepare

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// TestEndpointHint: the fail-fast hint names what to check for the class
// or status the first requests failed with; a server that answers in a
// framing llmbench cannot read is not asked whether it is running; the
// hint names the path the requests went to (the chat path under
// openai-chat without --endpoint, not the completions default it
// replaced).
func TestEndpointHint(t *testing.T) {
	t.Parallel()
	completions := &bench.Spec{Endpoint: bench.Endpoint{BaseURL: "http://127.0.0.1:8000", Path: "/v1/completions"}}
	chat := &bench.Spec{Endpoint: bench.Endpoint{Kind: bench.OpenAIChat, BaseURL: "http://127.0.0.1:8000", Path: "/v1/completions"}}
	timed := &bench.Spec{Endpoint: completions.Endpoint, RequestTimeout: 5 * time.Second}
	for _, tc := range []struct {
		name    string
		spec    *bench.Spec
		kind    bench.Kind
		e       bench.EndpointError
		want    string
		notWant string
	}{
		{"connection", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrConnection}, " — is the server at http://127.0.0.1:8000 running? check --base-url (or --host/--port)", ""},
		{"malformed", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrMalformedStream}, "http://127.0.0.1:8000/v1/completions answers with a stream that is not HTTP/1.1 OpenAI SSE", "running"},
		{"chat path", chat, bench.OpenAIChat, bench.EndpointError{N: 4, Class: record.ErrMalformedStream}, "http://127.0.0.1:8000/v1/chat/completions answers", ""},
		{"not found, no models to ask", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Status: 404}, " — http://127.0.0.1:8000/v1/completions does not exist: check --endpoint", ""},
		{"credentials", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Status: 401}, "refused the credentials: check OPENAI_API_KEY", ""},
		{"other", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Status: 400}, "rejected the request: check --model, --backend and the request flags", ""},
		// hostile2's early413: the model is fine, the request too large.
		{"413", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrHTTP4xx, Status: 413},
			" — http://127.0.0.1:8000/v1/completions refused the request as too large (413): send shorter prompts", "--model"},
		// A server that took the requests and then failed them did not
		// reject them: "check --model" would send the user the wrong way.
		{"timeout", timed, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrTimeout},
			" — http://127.0.0.1:8000/v1/completions took the requests but did not finish one within --request-timeout 5s", "rejected"},
		{"429", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrHTTP429, Status: 429}, "is limiting the request rate (429)", "rejected"},
		{"5xx", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrHTTP5xx, Status: 503}, "failed the requests on its side: check the server's log", "rejected"},
		{"error in the stream", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrServer}, "failed the requests on its side", "rejected"},
		{"truncated", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrStreamTruncated}, "ended its streams before the last frame", "rejected"},
		{"no content", completions, bench.OpenAICompletions, bench.EndpointError{N: 4, Class: record.ErrNoContent}, "every request failed alike; the error breakdown above says how", "rejected"},
		{"sagemaker", completions, bench.SageMaker, bench.EndpointError{N: 4, Status: 400}, " — check --endpoint-name, --region and the credentials", ""},
	} {
		got := EndpointHint(t.Context(), tc.spec, &bench.Plan{Kind: tc.kind}, &tc.e)
		if !strings.HasPrefix(got, " — ") || !strings.Contains(got, tc.want) || (tc.notWant != "" && strings.Contains(got, tc.notWant)) {
			t.Errorf("%s: hint %q, want %q in it and not %q", tc.name, got, tc.want, tc.notWant)
		}
	}
}

// TestEndpointHintAsksForTheModel: after a 404 the server's /v1/models
// says whether the model the requests named is served: the hint lists
// the models (at most ten) when it is not, and falls back to the path
// hint when it is.
func TestEndpointHintAsksForTheModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		served int
		asked  string
		want   string
	}{
		{"not served", 2, "x", ` — the server does not serve model "x"; its /v1/models lists: m0, m1 (pass one with --model, or leave --model out to take the first)`},
		{"many served", 12, "x", `its /v1/models lists: m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, ... (12 in all) (pass one`},
		{"served: the path is wrong", 2, "m1", "/v1/completions does not exist: check --endpoint"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var ids []string
			for i := range tc.served {
				ids = append(ids, fmt.Sprintf(`{"id":"m%d","object":"model"}`, i))
			}
			fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(ids, ","))
		}))
		c, err := openai.New(openai.Config{URL: srv.URL + "/v1/completions"})
		if err != nil {
			t.Fatal(err)
		}
		spec := &bench.Spec{Endpoint: bench.Endpoint{BaseURL: srv.URL, Path: "/v1/completions"}}
		plan := &bench.Plan{Backend: c, Requests: []backend.Request{{Model: tc.asked}}}
		if got := EndpointHint(t.Context(), spec, plan, &bench.EndpointError{N: 4, Status: 404}); !strings.Contains(got, tc.want) {
			t.Errorf("%s: hint %q, want %q in it", tc.name, got, tc.want)
		}
		srv.Close()
	}
}

// TestEndpointHintSageMaker: a SageMaker endpoint's hint names the cause
// the first requests failed with, as the OpenAI path's does; "check
// --endpoint-name, --region and the credentials" is kept for the
// rejections those explain (credentials, a wrong name or region).
func TestEndpointHintSageMaker(t *testing.T) {
	t.Parallel()
	spec := func(url string, readTimeout time.Duration) *bench.Spec {
		s := &bench.Spec{RequestTimeout: 5 * time.Second, Endpoint: bench.Endpoint{Kind: bench.SageMaker}}
		s.Endpoint.SageMaker.EndpointName = "my-ep"
		s.Endpoint.SageMaker.AWS.EndpointURL = url
		s.Endpoint.SageMaker.AWS.ReadTimeout = readTimeout
		return s
	}
	aws, local := spec("", 0), spec("http://127.0.0.1:9", 0)
	const checkName = " — check --endpoint-name, --region and the credentials"
	for _, tc := range []struct {
		name    string
		spec    *bench.Spec
		e       bench.EndpointError
		want    string
		notWant string
	}{
		// What the endpoint's name, region or credentials explain.
		{"not found", aws, bench.EndpointError{Class: "ValidationError", Status: 400}, checkName, ""},
		{"access denied", aws, bench.EndpointError{Class: "AccessDeniedException", Status: 403}, checkName, ""},
		{"bad signature", aws, bench.EndpointError{Class: "InvalidSignatureException", Status: 403}, checkName, ""},
		{"bare 401", local, bench.EndpointError{Class: record.ErrHTTP4xx, Status: 401}, checkName, ""},
		// What they do not: the cause is named.
		{"throttling at 400", aws, bench.EndpointError{Class: "ThrottlingException", Status: 400},
			" — endpoint my-ep is throttling the requests (ThrottlingException): lower the load", "credentials"},
		{"bare 429", local, bench.EndpointError{Class: record.ErrHTTP429, Status: 429},
			"is throttling the requests (http_429)", "credentials"},
		{"model not ready", aws, bench.EndpointError{Class: "ModelNotReadyException", Status: 429},
			"is not ready yet (ModelNotReadyException)", "throttling"},
		{"model error", aws, bench.EndpointError{Class: "ModelError", Status: 424},
			"the model container of endpoint my-ep answered with an error (ModelError", "credentials"},
		{"stream broken", aws, bench.EndpointError{Class: "ModelStreamError:StreamBroken", Status: 200},
			"endpoint my-ep broke off its streams (ModelStreamError:StreamBroken)", "credentials"},
		{"invocation time", aws, bench.EndpointError{Class: "ModelStreamError:ModelInvocationTimeExceeded", Status: 200},
			"did not finish an answer within SageMaker's time limit", "credentials"},
		{"internal stream failure", aws, bench.EndpointError{Class: "InternalStreamFailure", Status: 200},
			"broke off its streams (InternalStreamFailure)", "credentials"},
		{"timeout", aws, bench.EndpointError{Class: record.ErrTimeout, Status: 200},
			" — endpoint my-ep took the requests but did not finish one within --request-timeout 5s", "credentials"},
		{"read idle", aws, bench.EndpointError{Class: "timeout_read_idle", Status: 200},
			"longer than --sagemaker-read-timeout 15m0s", "credentials"},
		{"read idle set", spec("", time.Second), bench.EndpointError{Class: "timeout_read_idle", Status: 200},
			"--sagemaker-read-timeout 1s", ""},
		{"truncated", aws, bench.EndpointError{Class: record.ErrStreamTruncated, Status: 200},
			"endpoint my-ep ended its streams before the last frame", "credentials"},
		{"5xx", aws, bench.EndpointError{Class: "ServiceUnavailable", Status: 503},
			"endpoint my-ep failed the requests on its side", "credentials"},
		{"bare 5xx", local, bench.EndpointError{Class: record.ErrHTTP5xx, Status: 502}, "failed the requests on its side", "credentials"},
		{"error in the stream", aws, bench.EndpointError{Class: record.ErrServer, Status: 200}, "failed the requests on its side", "credentials"},
		{"413", local, bench.EndpointError{Class: record.ErrHTTP4xx, Status: 413},
			"endpoint my-ep refused the request as too large (413)", "credentials"},
		{"malformed", aws, bench.EndpointError{Class: record.ErrMalformedStream, Status: 200}, "check --payload-format", "credentials"},
		{"redirect", local, bench.EndpointError{Class: record.ErrOther, Status: 307},
			" — http://127.0.0.1:9 redirects the requests (HTTP 307), and llmbench follows no redirect", "credentials"},
		{"no server", local, bench.EndpointError{Class: record.ErrConnection},
			" — is the server at http://127.0.0.1:9 running? check --endpoint-url", "credentials"},
		{"no connection to AWS", aws, bench.EndpointError{Class: record.ErrConnection},
			"could not reach SageMaker Runtime: check --region", "credentials"},
	} {
		tc.e.N = 4
		got := EndpointHint(t.Context(), tc.spec, &bench.Plan{Kind: bench.SageMaker}, &tc.e)
		if !strings.HasPrefix(got, " — ") || !strings.Contains(got, tc.want) || (tc.notWant != "" && strings.Contains(got, tc.notWant)) {
			t.Errorf("%s: hint %q, want %q in it and not %q", tc.name, got, tc.want, tc.notWant)
		}
	}
}
