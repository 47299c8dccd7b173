package stream

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// NoContentMessage is vLLM's error text for a stream that ended without a
// token chunk (its two sentences really are joined without a space).
const NoContentMessage = "Never received a valid chunk to calculate TTFT.This response will be marked as failed!"

// ClassServerError is record.ErrServer: a 200 stream in which the server
// reported a failure, an error object ({"error": {...}} or {"object":
// "error", ...}) or a finish_reason of "error". Generation stopped early,
// so the request must not count as a success, though vLLM's client counts
// one that had sent a token chunk before the error as one.
const ClassServerError = record.ErrServer

// Collector is the Receiver of the OpenAI formats. It applies a stream's
// events to a backend.Response with vLLM's rules
// (docs/metrics.md#per-request-timing): each token chunk adds its arrival
// time to Chunks and its text to Text, and updates FinishReason; usage is
// taken only from a message without non-empty choices. Finish decides
// success.
//
// Usage: Start it (or set Resp and Parser's Framing/Mode), call Feed for
// every read with the time the read returned, then Finish at a clean end of
// stream or Fail on a transport error. Collector is not safe for concurrent
// use; it may be reused for another request after Reset or Start.
type Collector struct {
	// Parser parses the bytes; configure Framing and Decoder.Mode before
	// the first Feed.
	Parser Parser
	// Resp receives the results; it must be set before the first Feed.
	Resp *backend.Response
	// Meter bounds what the response holds: token chunk text, stamps and
	// the incomplete line. Set Max and Budget before the first Feed; a
	// response that outgrows it fails as record.ErrResponseTooLarge, with
	// the chunk times measured until then kept. Reset releases it.
	Meter Meter

	// text becomes Resp.Text without a copy (strings.Builder.String).
	text strings.Builder
	// stamps are the token chunks' arrival times as offsets from base
	// (the first one's), handed to Resp.Chunks at Finish or Fail: beside
	// the collector's other state, not in another object, where at 1,000
	// streams every event's store missed the cache (BENCHMARKS.md#framing-in-place).
	stamps    []time.Duration
	base      time.Time
	done      bool   // "[DONE]" seen
	usageLast bool   // a usage frame arrived, and no token chunk after it
	errMsg    string // last in-stream error message
}

// Reset prepares c for another request writing into resp.
func (c *Collector) Reset(resp *backend.Response) {
	c.Parser.Reset()
	c.Meter.Release()
	c.Parser.Lines.Meter = &c.Meter
	c.Resp = resp
	c.text.Reset()
	c.stamps = c.stamps[:0]
	c.done, c.usageLast, c.errMsg = false, false, ""
}

// Start prepares c for another request of format f (an OpenAI format)
// writing into resp: the text field by format, o's framing and meter, and
// room for o.MaxTokens chunks. Both transports set a Collector up through
// it (New, and the OpenAI backend's pool).
func (c *Collector) Start(resp *backend.Response, f Format, o Options) {
	c.Parser.Decoder.Mode = ModeCompletions
	if f == FormatChat {
		c.Parser.Decoder.Mode = ModeChat
	}
	c.Parser.Framing = o.Framing
	c.Reset(resp)
	c.Expect(o.MaxTokens)
	c.Meter = o.Meter
}

// Expect sizes the collector for a response of about n token chunks (the
// request's max_tokens), so the stamps and text are not copied as they
// grow. It reserves at most 4,096 stamps and 24 KiB of text (6 bytes a
// token: English averages about 4, the simulator's words 5 to 6): a larger
// answer grows as usual.
func (c *Collector) Expect(n int) {
	n = min(max(n, 0)+2, 4096)
	c.stamps = slices.Grow(c.stamps[:0], n)
	c.text.Grow(6 * n)
}

// Feed parses b, which arrived at now. A non-nil error means the stream is
// malformed or too large; the Collector has already recorded it in Resp
// (class record.ErrMalformedStream or record.ErrResponseTooLarge), so the
// caller only stops reading.
func (c *Collector) Feed(b []byte, now time.Time) error {
	if err := c.Parser.Feed(b, now, c); err != nil {
		class := record.ErrMalformedStream
		if errors.Is(err, ErrResponseTooLarge) {
			class = record.ErrResponseTooLarge
			err = fmt.Errorf("after %d token chunks: %w", c.Tokens(), err)
		}
		c.Fail(class, err)
		return err
	}
	return nil
}

// Tokens is the number of token chunks seen so far.
func (c *Collector) Tokens() int { return c.Resp.Chunks.Len() + len(c.stamps) }

// Event takes one of the Parser's events (Handler).
func (c *Collector) Event(e *Event) error {
	r := c.Resp
	switch e.Kind {
	case KindToken:
		// vLLM sends usage after the last token chunk; one that more
		// token chunks follow proves nothing about the end.
		c.usageLast = false
		if err := c.Meter.Keep(len(e.Msg.Text) + ChunkStampBytes); err != nil {
			return err
		}
		if len(c.stamps) == 0 {
			c.base = e.Time
		}
		c.stamps = append(c.stamps, e.Time.Sub(c.base))
		c.text.Write(e.Msg.Text)
		if e.Msg.FinishReason != "" {
			r.FinishReason = e.Msg.FinishReason
		}
	case KindUsage:
		c.usageLast = true
		r.CompletionTokens = nil
		if v := e.Msg.CompletionTokens; v >= 0 {
			r.CompletionTokens = &v
		}
		if v := e.Msg.PromptTokens; v >= 0 {
			r.PromptTokens = &v
		}
	case KindDone:
		c.done = true
	case KindIgnored:
		if e.Msg != nil && e.Msg.ErrorMessage != "" {
			c.errMsg = e.Msg.ErrorMessage
		}
	}
	return nil
}

// Finish is called when the stream ended cleanly (EOF) at now. It handles
// a final line without newline, stores Text, and decides the outcome:
//
//   - the server reported an error in the stream (an error object or
//     finish_reason "error"): ClassServerError, whatever else arrived;
//   - no token chunk at all: record.ErrNoContent with vLLM's message;
//   - no proper end — neither "[DONE]" nor a usage frame after the last
//     token chunk (with FramingJSONLines a finish_reason counts too):
//     record.ErrStreamTruncated;
//   - otherwise success (Resp.Err nil).
//
// It returns Resp.Err.
func (c *Collector) Finish(now time.Time) error {
	r := c.Resp
	if r.Err != nil {
		c.store()
		return r.Err
	}
	if err := c.Parser.Flush(now, c); err != nil {
		class := record.ErrMalformedStream
		if errors.Is(err, ErrTruncated) {
			class = record.ErrStreamTruncated
		}
		c.Fail(class, err)
		return r.Err
	}
	c.store()
	n := r.Chunks.Len()
	proper := c.done || c.usageLast ||
		(c.Parser.Framing == FramingJSONLines && r.FinishReason != "")
	switch {
	case c.errMsg != "" && n == 0:
		r.Err, r.ErrClass = fmt.Errorf("%s Server error in stream: %s", NoContentMessage, c.errMsg), ClassServerError
	case c.errMsg != "":
		r.Err, r.ErrClass = fmt.Errorf("server error in stream after %d token chunks: %s", n, c.errMsg), ClassServerError
	case r.FinishReason == "error":
		r.Err, r.ErrClass = fmt.Errorf("the server ended generation with finish_reason \"error\" after %d token chunks", n), ClassServerError
	case n == 0 && proper:
		//lint:ignore ST1005 vLLM's exact message, capital and all
		r.Err, r.ErrClass = errors.New(NoContentMessage), record.ErrNoContent
	case !proper:
		r.Err, r.ErrClass = fmt.Errorf("stream ended after %d token chunks without [DONE] or a usage frame", n), record.ErrStreamTruncated
	}
	return r.Err
}

// Fail records a transport or parse failure (class is a record.Err*
// constant) unless one is already recorded, and stores the text received so
// far. Chunk times already recorded are kept (vLLM keeps ttft/itl of a
// failed request).
func (c *Collector) Fail(class string, err error) {
	r := c.Resp
	if r.Err == nil {
		r.Err, r.ErrClass = err, class
	}
	c.store()
}

// Release returns the response's reservation to the Meter's Budget
// (Receiver); Reset does it too.
func (c *Collector) Release() { c.Meter.Release() }

// store moves the text and chunk stamps gathered so far into Resp (once
// per request in the common path: at Finish or Fail).
func (c *Collector) store() {
	r := c.Resp
	if c.text.Len() > 0 {
		// Handed over, not copied, like the stamps; a second store
		// (rare) adds what came after the first.
		r.Text += c.text.String()
		c.text.Reset()
	}
	if len(c.stamps) == 0 {
		return
	}
	if r.Chunks.Len() == 0 {
		// Handed over, not copied: the next request's Expect
		// allocates the collector new ones.
		r.Chunks = backend.StampsFrom(c.base, c.stamps)
		c.stamps = nil
		return
	}
	r.Chunks.Grow(len(c.stamps)) // a second store (rare): rebase on the first
	for _, d := range c.stamps {
		r.Chunks.Append(c.base.Add(d))
	}
	c.stamps = c.stamps[:0]
}
