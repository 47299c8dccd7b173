package sim

import (
	"bufio"
	"encoding/json"
	"io"
	"time"
)

// Chunk kinds in the ground truth.
const (
	ChunkToken     = "token"     // carries generated tokens (or the final empty EOS text)
	ChunkRole      = "role"      // chat's role-only first delta
	ChunkUsage     = "usage"     // the usage-only chunk
	ChunkDone      = "done"      // [DONE] (or LMI's empty final line)
	ChunkPing      = "ping"      // an SSE ": ping" comment
	ChunkMalformed = "malformed" // an injected chunk with broken JSON
	ChunkBody      = "body"      // a non-streamed response body
	ChunkError     = "error"     // an in-stream error frame (SageMaker exceptions)
)

// ChunkTruth is one write of a response: what it carried and when the
// server wrote it. A client's arrival stamp for the chunk should fall after
// WriteStart and, give or take network time, no later than WriteEnd
// (docs/sagemaker.md#ground-truth-stamps: "time after Flush" alone is not a valid stamp, since bytes
// may leave before the flush).
type ChunkTruth struct {
	// Kind is one of the Chunk* constants.
	Kind string
	// Tokens is how many generated tokens the chunk carried.
	Tokens int
	// Due is when the model produced the chunk's last token (the engine's
	// schedule); zero for chunks that carry no tokens.
	Due time.Time
	// WriteStart and WriteEnd bracket the write and flush to the socket.
	WriteStart, WriteEnd time.Time
}

// Truth is what the server knows about one request.
type Truth struct {
	// Seq is the server's arrival counter (1-based), which also seeds the
	// request's faults.
	Seq uint64
	// RequestID is the x-request-id header (or the SageMaker
	// X-Amzn-SageMaker-Inference-Id); "" when none was sent.
	RequestID string
	// Endpoint is the API called: "completions", "chat",
	// "sagemaker-stream", "sagemaker-invoke", "tokenize", ...
	Endpoint string
	// EndpointName is the SageMaker endpoint name in the path ("" for the
	// OpenAI API).
	EndpointName string
	// Kind is the request kind ("completions", "chat", "generate").
	Kind string
	// Format is the SageMaker payload format ("" for the OpenAI API).
	Format string
	// Stream is true for a streamed response.
	Stream bool
	// Arrival is when the request reached the handler.
	Arrival time.Time
	// Status is the HTTP status sent (0 when none was sent).
	Status int
	// Fault names the injected fault, "" for none.
	Fault string
	// PromptTokens and CompletionTokens are the counts the server used.
	PromptTokens, CompletionTokens int
	// FinishReason is "length", "stop" or "" when the stream did not end.
	FinishReason string
	// Chunks are the writes in order.
	Chunks []ChunkTruth
	// End is when the handler finished.
	End time.Time
}

// truthJSON is the JSON-lines form: times as Unix nanoseconds derived from
// the monotonic clock (origin wall time + monotonic offset), so lines from
// one server are consistent with each other even if the wall clock steps.
type truthJSON struct {
	Seq              uint64      `json:"seq"`
	RequestID        string      `json:"request_id,omitempty"`
	Endpoint         string      `json:"endpoint"`
	EndpointName     string      `json:"endpoint_name,omitempty"`
	Kind             string      `json:"kind,omitempty"`
	Format           string      `json:"format,omitempty"`
	Stream           bool        `json:"stream"`
	ArrivalNS        int64       `json:"arrival_unix_ns"`
	EndNS            int64       `json:"end_unix_ns"`
	Status           int         `json:"status"`
	Fault            string      `json:"fault,omitempty"`
	PromptTokens     int         `json:"prompt_tokens"`
	CompletionTokens int         `json:"completion_tokens"`
	FinishReason     string      `json:"finish_reason,omitempty"`
	Chunks           []chunkJSON `json:"chunks"`
}

type chunkJSON struct {
	Kind         string `json:"kind"`
	Tokens       int    `json:"tokens"`
	DueNS        int64  `json:"due_unix_ns,omitempty"`
	WriteStartNS int64  `json:"write_start_unix_ns"`
	WriteEndNS   int64  `json:"write_end_unix_ns"`
}

// clock converts monotonic times to Unix nanoseconds against one origin.
type clock struct {
	mono   time.Time
	wallNS int64
}

func newClock() clock {
	now := time.Now()
	return clock{mono: now, wallNS: now.UnixNano()}
}

func (c clock) ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return c.wallNS + int64(t.Sub(c.mono))
}

func (c clock) encode(t *Truth) truthJSON {
	j := truthJSON{
		Seq: t.Seq, RequestID: t.RequestID, Endpoint: t.Endpoint, EndpointName: t.EndpointName, Kind: t.Kind, Format: t.Format,
		Stream: t.Stream, ArrivalNS: c.ns(t.Arrival), EndNS: c.ns(t.End), Status: t.Status,
		Fault: t.Fault, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens,
		FinishReason: t.FinishReason, Chunks: make([]chunkJSON, len(t.Chunks)),
	}
	for i, ch := range t.Chunks {
		j.Chunks[i] = chunkJSON{Kind: ch.Kind, Tokens: ch.Tokens, DueNS: c.ns(ch.Due),
			WriteStartNS: c.ns(ch.WriteStart), WriteEndNS: c.ns(ch.WriteEnd)}
	}
	return j
}

// truthLog writes truth lines from one goroutine so request goroutines
// never wait on the file (the queue is large; a full queue does block the
// finished request rather than lose a line).
type truthLog struct {
	ch   chan truthJSON
	done chan error
}

func startTruthLog(w io.Writer) *truthLog {
	l := &truthLog{ch: make(chan truthJSON, 65536), done: make(chan error, 1)}
	go func() {
		bw := bufio.NewWriterSize(w, 1<<16)
		enc := json.NewEncoder(bw)
		var err error
		for j := range l.ch {
			if err == nil {
				err = enc.Encode(j)
			}
			if len(l.ch) == 0 && err == nil {
				err = bw.Flush()
			}
		}
		if err == nil {
			err = bw.Flush()
		}
		l.done <- err
	}()
	return l
}

func (l *truthLog) close() error {
	close(l.ch)
	return <-l.done
}
