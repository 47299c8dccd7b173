// Package backend turns one benchmark request into one streamed response and
// reports when each token chunk arrived. A backend knows nothing of rates,
// schedules or metrics; transports (HTTP SSE, SageMaker event stream) live in
// sub-packages, each with its payload formats.
package backend

import (
	"context"
	"slices"
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
	// Chunks holds one stamp per token chunk (a message with non-empty
	// choices, or the format's equivalent), in arrival order.
	Chunks Stamps
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

// Bounder is a Backend that bounds every request by its own timeout.
// Bounds(t) is true when that timeout is at most t: the runner then puts
// no deadline of its own on the request's context (a context and a timer
// per request cost CPU at 1,000 streams; the OpenAI client bounds its
// requests without either, BENCHMARKS.md#cache-lines-per-chunk).
type Bounder interface {
	Bounds(timeout time.Duration) bool
}

// Stamps are the arrival times of a response's token chunks, kept as
// offsets from the first: 8 bytes a chunk and nothing for the garbage
// collector to scan, where a []time.Time takes 24 and a pointer each. At
// 1,000 streams the stamps built at the end of every answer were the
// run's last rise in memory (BENCHMARKS.md#stamps-as-offsets). Each
// stamp is the same instant it was taken: base.Add keeps the monotonic
// reading. The zero value is empty.
type Stamps struct {
	base time.Time
	offs []time.Duration
}

// StampsFrom returns stamps at base+offs[i], taking offs (which the
// caller must no longer change).
func StampsFrom(base time.Time, offs []time.Duration) Stamps {
	return Stamps{base: base, offs: offs}
}

// StampsOf returns the stamps ts, in order.
func StampsOf(ts ...time.Time) Stamps {
	var s Stamps
	s.Grow(len(ts))
	for _, t := range ts {
		s.Append(t)
	}
	return s
}

// Len is the number of stamps.
func (s *Stamps) Len() int { return len(s.offs) }

// At is stamp i.
func (s *Stamps) At(i int) time.Time { return s.base.Add(s.offs[i]) }

// Gap is stamp i minus stamp i-1 (i >= 1): an inter-chunk latency.
func (s *Stamps) Gap(i int) time.Duration { return s.offs[i] - s.offs[i-1] }

// Append adds t.
func (s *Stamps) Append(t time.Time) {
	if len(s.offs) == 0 {
		s.base = t
	}
	s.offs = append(s.offs, t.Sub(s.base))
}

// Grow makes room for n more stamps.
func (s *Stamps) Grow(n int) { s.offs = slices.Grow(s.offs, n) }

// Times returns the stamps as times (a copy; for tests and tools).
func (s *Stamps) Times() []time.Time {
	t := make([]time.Time, len(s.offs))
	for i := range t {
		t[i] = s.At(i)
	}
	return t
}
