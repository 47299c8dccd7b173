// Package backend turns one benchmark request into one streamed response and
// reports when each token chunk arrived. A backend knows nothing of rates,
// schedules or metrics; transports (HTTP SSE, SageMaker event stream) live in
// sub-packages, each with its payload formats.
package backend

import (
	"context"
	"time"
)

// Request is one request to send. The zero value of optional fields means
// "leave it out of the body".
type Request struct {
	// Index is the request's dataset index (used for the request id).
	Index int
	// ID is sent as x-request-id (HTTP) or the inference id (SageMaker);
	// "" sends none (warm-ups, ready checks).
	ID string
	// Model is the name put in the body's "model" field.
	Model string
	// Prompt is the prompt text (completions), or the text of the single
	// user message (chat) when Messages is nil.
	Prompt string
	// Messages, when non-nil, is sent as-is as the chat "messages" array
	// (datasets that carry prebuilt conversations).
	Messages []map[string]any
	// PromptIDs, when non-nil, is sent as the completions "prompt" (a list
	// of token ids, as vLLM sends pre-tokenized trace prompts) instead of
	// Prompt; Prompt then holds their text for reports.
	PromptIDs []int
	// PromptLen is the client's token count of the prompt.
	PromptLen int
	// MaxTokens is the requested output length (max_tokens /
	// max_completion_tokens).
	MaxTokens int
	// IgnoreEOS adds "ignore_eos": true.
	IgnoreEOS bool
	// ExtraBody is merged into the body last (sampling params, --extra-body);
	// its keys win.
	ExtraBody map[string]any
}

// Response is what a backend observed for one request. Times come from
// time.Now() (monotonic) taken when the read that completed each chunk
// returned — never after buffering the whole response.
type Response struct {
	// Start is taken immediately before the request is sent (after any
	// concurrency wait and after the body was built).
	Start time.Time
	// ChunkTimes holds one stamp per token chunk (a message with non-empty
	// choices, or the format's equivalent), in arrival order.
	ChunkTimes []time.Time
	// Text is the concatenated generated text.
	Text string
	// PromptTokens and CompletionTokens come from the usage frame; nil when
	// the server sent none.
	PromptTokens     *int
	CompletionTokens *int
	// FinishReason is the last non-empty finish_reason seen.
	FinishReason string
	// HTTPStatus is the response status code; 0 if no response arrived.
	HTTPStatus int
	// Err is nil on success. ErrClass files it (record.Err* constants or a
	// backend-specific class).
	Err      error
	ErrClass string
}

// Backend sends requests. Implementations must be safe for concurrent use
// by many goroutines.
type Backend interface {
	// Send performs req and fills resp. It never panics on bad server
	// behaviour: every failure is reported through resp.Err/resp.ErrClass.
	// ctx bounds the whole request including the stream.
	Send(ctx context.Context, req *Request, resp *Response)
}
