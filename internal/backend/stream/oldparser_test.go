package stream

import (
	"bytes"
	"errors"
	"fmt"
	"time"
)

// oldParser turns bytes into Events. SSE rules (FramingSSE):
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
// parser serves both).
//
// Unlike vLLM's client, a ": ping" comment that ends a read does not glue
// itself to the next message (see docs/metrics.md#sse-parsing): we follow the SSE
// standard rather than that quirk.
//
// The zero value parses SSE in ModeAuto. A oldParser is not safe for
// concurrent use.
type oldParser struct {
	// Framing selects SSE (zero value) or JSON lines.
	Framing Framing
	// Decoder decodes the JSON messages; set Decoder.Mode to pick the text
	// field.
	Decoder Decoder
	// Lines splits the bytes; its MaxLineBytes bounds a line.
	Lines LineSplitter
}

// Feed consumes b, which arrived at now, and hands h each message that b
// completes, in order. The error, if any, wraps ErrMalformed (or is h's
// own error) and the stream should be abandoned.
func (p *oldParser) oldFeed(b []byte, now time.Time, h Handler) error {
	lent := p.oldlend(now, h)
	var err error
	if payload, ok := p.oldwholeEvent(b); ok {
		err = p.oldMessage(payload)
	} else {
		err = p.Lines.Feed(b, p.oldLine)
	}
	p.oldgiveBack(lent)
	return err
}

// lend gives the Decoder a work from the pool for one Feed or Flush,
// unless it has its own; giveBack(true) returns it.
func (p *oldParser) oldlend(now time.Time, h Handler) (lent bool) {
	if p.Decoder.w == nil {
		p.Decoder.w, lent = works.Get().(*work), true
	}
	p.Decoder.w.now, p.Decoder.w.h = now, h
	return lent
}

func (p *oldParser) oldgiveBack(lent bool) {
	w := p.Decoder.w
	w.release()
	if lent {
		p.Decoder.w = nil
		works.Put(w)
	}
}

// wholeEvent reports whether b is exactly one "data: ...\n\n" SSE event
// with nothing held from earlier feeds, the usual read of a stream, and
// returns its payload: what the line splitter and line would hand to
// message (a "\r" before the first "\n" is left to message's trim), at
// one call instead of a callback per line.
func (p *oldParser) oldwholeEvent(b []byte) (payload []byte, ok bool) {
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
func (p *oldParser) oldFlush(now time.Time, h Handler) error {
	lent := p.oldlend(now, h)
	err := p.Lines.Flush(p.oldLine)
	p.oldgiveBack(lent)
	if err != nil && errors.Is(err, ErrMalformed) {
		return fmt.Errorf("%w: %w", ErrTruncated, err)
	}
	return err
}

// Reset prepares the parser for another stream, keeping its buffers.
func (p *oldParser) oldReset() { p.Lines.Reset() }

// line handles one complete line.
func (p *oldParser) oldLine(line []byte) error {
	if len(line) == 0 {
		return nil
	}
	payload := line
	switch {
	case bytes.HasPrefix(line, prefixData):
		payload = line[len(prefixData):]
		if len(payload) > 0 && payload[0] == ' ' {
			payload = payload[1:]
		}
	case line[0] == ':':
		return nil // comment / keep-alive
	case line[0] == '{':
		// a bare JSON message
	default:
		name := line
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name = line[:i]
		}
		switch string(name) {
		case "event", "id", "retry":
			return nil // no JSON line starts like this, whatever the framing
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		if p.Framing != FramingJSONLines {
			return fmt.Errorf("%w: unexpected line %s", ErrMalformed, quote(line))
		}
	}
	return p.oldMessage(payload)
}

// message decodes one payload and reports it.
func (p *oldParser) oldMessage(payload []byte) error {
	payload = bytes.TrimSpace(payload)
	w := p.Decoder.w
	w.ev = Event{Time: w.now}
	switch {
	case len(payload) == 0:
		return nil // "data:" with nothing: an empty SSE data field
	case bytes.Equal(payload, tokenDone):
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
