// Package stream turns the bytes of a streamed LLM response into timed
// events and a backend.Response, independent of the transport that carried
// them (an HTTP body, or SageMaker PayloadParts). Every payload format
// lives here behind one interface, Receiver (New picks one per Format):
//
//   - LineSplitter reassembles bytes fed in pieces of any size (even one
//     byte, even splitting a multi-byte UTF-8 character or a "\r\n") into
//     complete lines; cutFrame reads a line's SSE or JSON-lines framing,
//     for every format.
//   - Decoder reads one OpenAI-style JSON message (a completions or chat
//     chunk) without building a generic JSON tree: a validating scan that
//     picks out choices[0].text, choices[0].delta.content,
//     choices[0].finish_reason and usage.
//   - Parser combines both for SSE ("data: {...}") or JSON-lines framing and
//     reports Events stamped with the time of the read that completed them;
//     Collector, the OpenAI formats' Receiver, applies those events to a
//     backend.Response with vLLM's rules.
//   - The TGI and LMI token streams have their own Receiver, with their own
//     end marker and error rules (docs/sagemaker.md#end-markers).
//
// The package does no I/O and reads no clock: callers pass the time at which
// each piece of bytes arrived.
package stream

import (
	"bytes"
	"errors"
	"fmt"
)

// DefaultMaxLineBytes is the longest line LineSplitter accepts when its
// MaxLineBytes is 0. A streamed chunk is a few hundred bytes; 8 MiB leaves
// room for a final message carrying a whole generated text.
const DefaultMaxLineBytes = 8 << 20

// ErrLineTooLong is returned (wrapped) when a line exceeds the limit.
var ErrLineTooLong = errors.New("line too long")

// LineSplitter cuts a byte stream into lines. A line ends at "\n"; one "\r"
// before it is removed, so "\r\n" endings work even when the "\r" and the
// "\n" arrive in different feeds. A lone "\r" is not a line end (vLLM's
// client does not treat it as one either). Lines are byte slices: UTF-8 is
// never decoded here, and since "\n" never occurs inside a multi-byte UTF-8
// sequence, a character split across feeds is whole again in the line.
//
// The zero value is ready to use. A LineSplitter is not safe for concurrent
// use.
type LineSplitter struct {
	// MaxLineBytes bounds the length of a line held across feeds; 0 means
	// DefaultMaxLineBytes.
	MaxLineBytes int
	// Meter, when set, also accounts the incomplete line held across
	// feeds (Meter.Line), so that it counts against the response's and the
	// shared limits; its error (wrapping ErrResponseTooLarge) ends Feed.
	Meter *Meter

	buf []byte // the incomplete line carried over from earlier feeds
}

// Feed appends p to the stream and calls fn once per line that p completes,
// in order, without the line terminator. The slice passed to fn is only
// valid during the call. If fn returns an error, Feed stops and returns it;
// the rest of p is dropped (the stream is unusable after an error).
func (s *LineSplitter) Feed(p []byte, fn func(line []byte) error) error {
	limit := s.MaxLineBytes
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(s.buf)+len(p) > limit {
				return fmt.Errorf("%w: more than %d bytes without a newline", ErrLineTooLong, limit)
			}
			if s.Meter != nil {
				if err := s.Meter.Line(len(s.buf) + len(p)); err != nil {
					return err
				}
			}
			s.buf = append(s.buf, p...)
			return nil
		}
		var line []byte
		if len(s.buf) == 0 {
			// Fast path: the whole line is inside p, no copy.
			line = p[:i]
		} else {
			if len(s.buf)+i > limit {
				return fmt.Errorf("%w: more than %d bytes without a newline", ErrLineTooLong, limit)
			}
			s.buf = append(s.buf, p[:i]...)
			line = s.buf
		}
		p = p[i+1:]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		held := len(s.buf) > 0
		err := fn(line)
		s.buf = s.buf[:0]
		if held && s.Meter != nil {
			_ = s.Meter.Line(0) // shrinking never fails
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Flush reports the bytes after the last "\n" as a final line (one trailing
// "\r" removed), if there are any, and empties the splitter. Call it once at
// the end of the stream: a server may close without a final newline.
func (s *LineSplitter) Flush(fn func(line []byte) error) error {
	if len(s.buf) == 0 {
		return nil
	}
	line := s.buf
	if n := len(line); line[n-1] == '\r' {
		line = line[:n-1]
	}
	err := fn(line)
	s.buf = s.buf[:0]
	return err
}

// Reset empties the splitter so it can be reused for another stream,
// keeping its buffer.
func (s *LineSplitter) Reset() { s.buf = s.buf[:0] }
