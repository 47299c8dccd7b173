// Package record defines the per-request Record that every later stage reads
// (metrics and the reports), and its JSON-lines codec.
//
// A Record holds what vLLM's request function returns (RequestFuncOutput),
// with the same units — seconds as float64 on a monotonic clock with an
// arbitrary origin — so that metrics computed from records reproduce
// vllm bench serve's arithmetic bit for bit. Our additions (intended send
// time, queue time, error class, token-count source, finish reason, worker)
// sit beside those fields and never change vLLM's figures.
//
// This package does no I/O beyond the codec and holds no measurement logic.
package record

import (
	"fmt"
	"math"
)

// Sources of a record's output token count, as reported in results.
const (
	// SourceServerUsage: the server's usage frame (usage.completion_tokens).
	SourceServerUsage = "server-usage"
	// SourceTokenizer: generated_text counted with the client's tokenizer.
	SourceTokenizer = "tokenizer"
	// SourceFallback1: no usage and no tokenizer; vLLM's last-resort value 1.
	SourceFallback1 = "fallback-1"
)

// Error classes a failed request is filed under. Backends may add their own
// (for example SageMaker's ThrottlingException or ModelStreamError:<code>);
// these are the transport-independent ones.
const (
	ErrHTTP4xx         = "http_4xx"
	ErrHTTP429         = "http_429"
	ErrHTTP5xx         = "http_5xx"
	ErrTimeout         = "timeout"
	ErrConnection      = "connection"
	ErrStreamTruncated = "stream_truncated"
	ErrMalformedStream = "malformed_stream"
	ErrNoContent       = "no_content"
	// ErrServer: a 200 stream in which the server reported a failure (an
	// error object, or finish_reason "error"): generation stopped early.
	ErrServer   = "server_error"
	ErrCanceled = "canceled"
	// ErrResponseTooLarge: the response outgrew what one request may hold
	// in memory (generated text and chunk stamps; see the backends'
	// MaxResponseBytes). Timing measured until then is kept.
	ErrResponseTooLarge = "response_too_large"
	// ErrOther: anything else, notably a redirect (never followed: a
	// redirected benchmark POST goes to a misconfigured URL).
	ErrOther = "other"
)

// Classes lists the transport-independent error classes above, in the
// order the README names them.
var Classes = []string{
	ErrHTTP4xx, ErrHTTP429, ErrHTTP5xx, ErrTimeout, ErrConnection,
	ErrStreamTruncated, ErrMalformedStream, ErrNoContent, ErrServer,
	ErrResponseTooLarge, ErrCanceled, ErrOther,
}

// Record is one request's outcome. Times are seconds on one monotonic clock
// per run (origin arbitrary, usually the run's start); durations are seconds.
type Record struct {
	// Index is the request's position in dispatch order (the dataset index).
	Index int `json:"index"`

	// Success is true when the request counted as successful (vLLM rules:
	// HTTP 200, at least one token chunk, the stream ended properly).
	Success bool `json:"success"`
	// PromptLen is the prompt's token count: the dataset's count, replaced by
	// the server's usage.prompt_tokens when the usage frame carried it.
	PromptLen int `json:"prompt_len"`
	// OutputTokens is usage.completion_tokens from the server's usage frame;
	// nil when no usage frame arrived (vLLM's null).
	OutputTokens *int `json:"output_tokens"`
	// ExpectedOutputLen is the requested max_tokens (informational).
	ExpectedOutputLen int `json:"expected_output_len"`
	// TTFT is start to the first chunk with non-empty choices, in seconds;
	// 0 when no such chunk arrived.
	TTFT float64 `json:"ttft"`
	// ITL holds the gaps between consecutive token chunks, in seconds
	// (chunks, not tokens: len(ITL) = token chunks - 1).
	ITL []float64 `json:"itl"`
	// Latency is start to the last token chunk, in seconds; 0 for failures.
	Latency float64 `json:"latency"`
	// StartTime is when the request was sent (after any concurrency wait),
	// in seconds on the run's clock.
	StartTime float64 `json:"start_time"`
	// GeneratedText is the concatenated text of the token chunks.
	GeneratedText string `json:"generated_text"`
	// Error is "" on success, else a human-readable error message.
	Error string `json:"error"`

	// StartUnixNano is StartTime on the wall clock, in Unix nanoseconds
	// (the header's anchor plus StartTime); 0 when unknown. It lets records
	// of several processes share one timeline (docs/records.md).
	StartUnixNano int64 `json:"start_unix_ns,omitempty"`
	// IntendedTime is when the schedule meant the request to start, on the
	// same clock as StartTime; nil when unknown (e.g. conformance input).
	IntendedTime *float64 `json:"intended_time,omitempty"`
	// QueueTime is how long the request waited client-side for a
	// concurrency slot (vLLM's client_queue_time), in seconds.
	QueueTime float64 `json:"queue_time,omitempty"`
	// OutputTokensSource says where the output token count came from
	// (SourceServerUsage, SourceTokenizer, SourceFallback1); "" = not yet
	// resolved (metrics resolves it the way vLLM does).
	OutputTokensSource string `json:"output_tokens_source,omitempty"`
	// FinishReason is the server's finish_reason ("length", "stop", ...);
	// "" when none arrived.
	FinishReason string `json:"finish_reason,omitempty"`
	// UsageSeen is true when a usage frame arrived.
	UsageSeen bool `json:"usage_seen,omitempty"`
	// ErrorClass files a failure under one of the Err* classes (or a
	// backend-specific one); "" on success.
	ErrorClass string `json:"error_class,omitempty"`
	// HTTPStatus is the response status code; 0 when no response arrived.
	HTTPStatus int `json:"http_status,omitempty"`
	// User is the closed-loop user that sent the request, 1-based; 0 in
	// an open-loop run.
	User int `json:"user,omitempty"`
	// ThinkTime is the pause, in seconds, the user took after its previous
	// response before this request (drawn from --think-time).
	ThinkTime float64 `json:"think_time,omitempty"`
	// Conversation and Turn place a multi-turn request: the conversation
	// (1-based position in the replayed list) and its turn within it
	// (1-based); 0 for single-turn runs.
	Conversation int `json:"conversation,omitempty"`
	Turn         int `json:"turn,omitempty"`
	// Worker identifies the process that sent the request in a distributed
	// run: its worker index plus one (1-based, like User); 0 for a
	// single-process run (docs/distributed.md).
	Worker int `json:"worker,omitempty"`
	// TokenizerCount is the client tokenizer's count of GeneratedText when
	// the output length had to come from it (OutputTokensSource ==
	// SourceTokenizer); 0 = not counted. Kept so a saved file recomputes
	// the same figures without loading the tokenizer again.
	TokenizerCount int `json:"tokenizer_count,omitempty"`
}

// End is when the request ended on the run's clock, in seconds: the
// last token chunk (start + TTFT + the ITLs), or the start for a request
// that saw none.
func (r *Record) End() float64 {
	end := r.StartTime + r.TTFT
	for _, g := range r.ITL {
		end += g
	}
	return max(end, r.StartTime+r.Latency)
}

// MaxSeconds is the largest time a record may carry, in seconds (about
// 31,700 years): no measurement is that long, and with this bound every
// sum the metrics and reports make of a file's times (a request's ITLs,
// a mean over millions of requests, milliseconds for charts) stays
// finite: a sum of finite times can otherwise overflow to +Inf, which
// JSON cannot hold and charts cannot place.
const MaxSeconds = 1e12

// Validate reports the first thing that makes r unusable for metrics: a
// negative, non-finite or impossibly large time (see MaxSeconds), or a
// negative token count.
func (r *Record) Validate() error {
	check := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is not a finite number", name)
		}
		if v < 0 {
			return fmt.Errorf("%s is negative (%v)", name, v)
		}
		if v > MaxSeconds {
			return fmt.Errorf("%s is %v s, more than %v s: not a measured time", name, v, float64(MaxSeconds))
		}
		return nil
	}
	if err := check("ttft", r.TTFT); err != nil {
		return err
	}
	if err := check("latency", r.Latency); err != nil {
		return err
	}
	// Times on the run's clock were never required to be positive (nor
	// the think time, which no figure uses); only their size is bounded.
	for _, t := range [...]struct {
		name string
		v    *float64
	}{{"start_time", &r.StartTime}, {"intended_time", r.IntendedTime}, {"think_time", &r.ThinkTime}} {
		if t.v == nil {
			continue
		}
		if math.IsNaN(*t.v) || math.IsInf(*t.v, 0) {
			return fmt.Errorf("%s is not a finite number", t.name)
		}
		if math.Abs(*t.v) > MaxSeconds {
			return fmt.Errorf("%s is %v s, more than %v s from the run's start: not a measured time", t.name, *t.v, float64(MaxSeconds))
		}
	}
	if err := check("queue_time", r.QueueTime); err != nil {
		return err
	}
	for i, v := range r.ITL {
		// Test first, name later: formatting the name for every gap
		// would dominate Summarize on large runs. NaN fails both tests.
		if v >= 0 && v <= MaxSeconds {
			continue
		}
		if err := check(fmt.Sprintf("itl[%d]", i), v); err != nil {
			return err
		}
	}
	if err := checkCount("prompt_len", r.PromptLen); err != nil {
		return err
	}
	if r.OutputTokens != nil {
		if err := checkCount("output_tokens", *r.OutputTokens); err != nil {
			return err
		}
	}
	if err := checkCount("tokenizer_count", r.TokenizerCount); err != nil {
		return err
	}
	return checkCount("expected_output_len", r.ExpectedOutputLen)
}

// MaxTokenCount is the largest token count a record may carry: no request
// has a trillion tokens, and with this bound totals over up to 9 million
// records cannot overflow int64 (metrics still checks its sums).
const MaxTokenCount = 1_000_000_000_000

// checkCount rejects a negative count, or one too large to be real.
func checkCount(name string, n int) error {
	if n < 0 {
		return fmt.Errorf("%s is negative (%d)", name, n)
	}
	if n > MaxTokenCount {
		return fmt.Errorf("%s is %d, more than %d tokens: not a real count", name, n, MaxTokenCount)
	}
	return nil
}

// Indices finds a request recorded twice: within one file (the reader,
// by line) and across the files of a distributed run (merge, by file).
// The zero value is empty.
type Indices struct{ at map[int]int }

// Add notes that request index was seen at where (a line number, an input
// position); when it was seen before, it returns that earlier where and
// true, and keeps the first.
func (s *Indices) Add(index, where int) (int, bool) {
	if s.at == nil {
		s.at = make(map[int]int)
	}
	if prev, ok := s.at[index]; ok {
		return prev, true
	}
	s.at[index] = where
	return 0, false
}
