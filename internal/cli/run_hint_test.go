package cli

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// TestEndpointHint: the fail-fast hint names what to check for the class
// the first requests failed with; a server that answers in a framing
// llmbench cannot read is not asked whether it is running.
func TestEndpointHint(t *testing.T) {
	t.Parallel()
	o := &runOptions{resolved: &bench.Spec{Endpoint: bench.Endpoint{BaseURL: "http://127.0.0.1:8000", Path: "/v1/completions"}}}
	for _, tc := range []struct {
		class   string
		want    string
		notWant string
	}{
		{record.ErrConnection, "is the server at http://127.0.0.1:8000 running?", ""},
		{record.ErrMalformedStream, "http://127.0.0.1:8000/v1/completions answers with a stream that is not HTTP/1.1 OpenAI SSE", "running"},
	} {
		got := o.endpointHint(t.Context(), nil, &bench.Plan{}, &bench.EndpointError{N: 4, Class: tc.class})
		if !strings.Contains(got, tc.want) || (tc.notWant != "" && strings.Contains(got, tc.notWant)) {
			t.Errorf("%s: hint %q, want %q in it and not %q", tc.class, got, tc.want, tc.notWant)
		}
	}
}

// TestEndpointHintNamesTheChatPath: --backend openai-chat without
// --endpoint sends to /v1/chat/completions, and the hint names that path,
// not the completions default it replaced.
func TestEndpointHintNamesTheChatPath(t *testing.T) {
	t.Parallel()
	o := &runOptions{resolved: &bench.Spec{Endpoint: bench.Endpoint{Kind: bench.OpenAIChat, BaseURL: "http://127.0.0.1:8000", Path: "/v1/completions"}}}
	got := o.endpointHint(t.Context(), nil, &bench.Plan{Kind: bench.OpenAIChat}, &bench.EndpointError{N: 4, Class: record.ErrMalformedStream})
	if !strings.Contains(got, "http://127.0.0.1:8000/v1/chat/completions answers") {
		t.Errorf("hint %q does not name the chat path the requests went to", got)
	}
}
