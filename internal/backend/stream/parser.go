package stream

import (
	"bytes"
	"errors"
	"fmt"
	"time"
)

// Kind is the kind of an Event.
type Kind uint8

const (
	// KindIgnored is a message that is neither a token chunk nor a usage
	// frame (empty choices and no usage, e.g. an error object).
	KindIgnored Kind = iota
	// KindToken is a message whose "choices" is a non-empty list, whether
	// or not its text is empty: vLLM's token chunk.
	KindToken
	// KindUsage is a message without non-empty choices whose "usage" is a
	// non-empty object.
	KindUsage
	// KindDone is the "[DONE]" end marker.
	KindDone
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindToken:
		return "token"
	case KindUsage:
		return "usage"
	case KindDone:
		return "done"
	}
	return "ignored"
}

// Event is one message found in the stream. The Event, its Msg and their
// slices are only valid during the Handler call that receives them.
type Event struct {
	// Kind says what the message was.
	Kind Kind
	// Time is the time passed to the Feed (or Flush) call that completed
	// the message: when the read that delivered its last byte returned.
	Time time.Time
	// Msg is the decoded JSON message; nil for KindDone.
	Msg *Message
}

// ErrMalformed is wrapped by every error about bytes that are not a valid
// stream of the chosen framing (record.ErrMalformedStream).
var ErrMalformed = errors.New("malformed stream")

// ErrTruncated is wrapped by Flush's error when the bytes left at the end of
// the stream are an incomplete message (record.ErrStreamTruncated).
var ErrTruncated = errors.New("stream ended inside a message")

// Parser turns bytes into Events. SSE rules (FramingSSE):
//
//   - "data:" with or without one space after the colon; the rest of the
//     line is one message. A message is reported when its line is complete,
//     without waiting for the blank line (vLLM's client also takes a
//     complete "data: <JSON>" at the end of a read as a message). Multi-line
//     data fields are not supported, as in vLLM.
//   - "[DONE]" is KindDone.
//   - Blank lines, ":" comment/keep-alive lines and the event:, id:, retry:
//     fields are skipped.
//   - A line starting with "{" is taken as a JSON message too (vLLM strips
//     an optional "data: " and parses the rest).
//   - Anything else is malformed.
//
// With FramingJSONLines every other non-blank line is a message ("[DONE]",
// an optional "data:" prefix and the SSE fields are still accepted, so one
// parser serves both); FramingAny also trims each line first. These rules
// are cutFrame's, which the TGI/LMI decoder reads its lines with too.
//
// Unlike vLLM's client, a ": ping" comment that ends a read does not glue
// itself to the next message (see docs/metrics.md#sse-parsing): we follow the SSE
// standard rather than that quirk.
//
// The zero value parses SSE in ModeAuto. A Parser is not safe for
// concurrent use.
type Parser struct {
	// Framing selects SSE (zero value), JSON lines or either per line.
	Framing Framing
	// Decoder decodes the JSON messages; set Decoder.Mode to pick the text
	// field.
	Decoder Decoder
	// Lines splits the bytes; its MaxLineBytes bounds a line.
	Lines LineSplitter
}

// Handler receives a Parser's events. The Collector is one: called through
// an interface, the call reads the Collector, which the event touches
// anyway, where a method value would read a closure object of its own —
// one more cache line per chunk and stream, cold at 1,000 streams
// (BENCHMARKS.md#cache-lines-per-chunk).
type Handler interface {
	Event(e *Event) error
}

// HandlerFunc makes a function a Handler.
type HandlerFunc func(*Event) error

// Event calls f(e).
func (f HandlerFunc) Event(e *Event) error { return f(e) }

// Feed consumes b, which arrived at now, and hands h each message that b
// completes, in order. The error, if any, wraps ErrMalformed (or is h's
// own error) and the stream should be abandoned.
func (p *Parser) Feed(b []byte, now time.Time, h Handler) error {
	lent := p.lend(now, h)
	var err error
	if payload, ok := p.wholeEvent(b); ok {
		err = p.frame(dataFrame(payload))
	} else {
		err = p.Lines.Feed(b, p.line)
	}
	p.giveBack(lent)
	return err
}

// lend gives the Decoder a work from the pool for one Feed or Flush,
// unless it has its own; giveBack(true) returns it.
func (p *Parser) lend(now time.Time, h Handler) (lent bool) {
	if p.Decoder.w == nil {
		p.Decoder.w, lent = works.Get().(*work), true
	}
	p.Decoder.w.now, p.Decoder.w.h = now, h
	return lent
}

func (p *Parser) giveBack(lent bool) {
	w := p.Decoder.w
	w.release()
	if lent {
		p.Decoder.w = nil
		works.Put(w)
	}
}

// wholeEvent reports whether b is exactly one "data: ...\n\n" SSE event
// with nothing held from earlier feeds, the usual read of a stream, and
// returns its payload: what the line splitter and cutFrame would make of
// it (a "\r" before the first "\n" is left to dataFrame's trim), at one
// call instead of a callback per line.
func (p *Parser) wholeEvent(b []byte) (payload []byte, ok bool) {
	n := len(b)
	if p.Framing != FramingSSE || len(p.Lines.buf) > 0 || n < len(prefixDataSpace)+2 ||
		b[n-1] != '\n' || b[n-2] != '\n' || !bytes.HasPrefix(b, prefixDataSpace) ||
		bytes.IndexByte(b[:n-2], '\n') >= 0 {
		return nil, false
	}
	return b[len(prefixDataSpace) : n-2], true
}

// Flush handles what is left after the last newline at the end of the
// stream (a server may close without a final newline). A leftover that is
// an incomplete message gives an error wrapping ErrTruncated.
func (p *Parser) Flush(now time.Time, h Handler) error {
	lent := p.lend(now, h)
	err := p.Lines.Flush(p.line)
	p.giveBack(lent)
	if err != nil && errors.Is(err, ErrMalformed) {
		return fmt.Errorf("%w: %w", ErrTruncated, err)
	}
	return err
}

// Reset prepares the parser for another stream, keeping its buffers.
func (p *Parser) Reset() { p.Lines.Reset() }

// line handles one complete line.
func (p *Parser) line(line []byte) error {
	fr, payload := cutFrame(line, p.Framing)
	if fr == frameBad {
		return fmt.Errorf("%w: unexpected line %s", ErrMalformed, quote(line))
	}
	return p.frame(fr, payload)
}

// frame decodes and reports what one line held.
func (p *Parser) frame(fr frame, payload []byte) error {
	w := p.Decoder.w
	w.ev = Event{Time: w.now}
	switch fr {
	case frameSkip:
		return nil
	case frameDone:
		w.ev.Kind = KindDone
	default:
		m, err := w.decode(&p.Decoder, payload)
		if err != nil {
			return fmt.Errorf("%w: %w in %s", ErrMalformed, err, quote(payload))
		}
		w.ev.Msg = m
		switch {
		case m.Choices > 0:
			w.ev.Kind = KindToken
		case m.Usage:
			w.ev.Kind = KindUsage
		default:
			w.ev.Kind = KindIgnored
		}
	}
	return w.h.Event(&w.ev)
}

// quote shows at most 120 bytes of b for an error message.
func quote(b []byte) string {
	const maxShown = 120
	if len(b) > maxShown {
		return fmt.Sprintf("%q...", b[:maxShown])
	}
	return fmt.Sprintf("%q", b)
}
