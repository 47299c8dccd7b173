// Package eventstream writes the SageMaker Runtime side of
// InvokeEndpointWithResponseStream: container bytes re-framed as AWS event
// stream PayloadPart messages (split at a chosen part size), the exception
// frames SageMaker sends mid-stream (ModelStreamError, InternalStreamFailure),
// and the JSON error answers it gives before a stream starts
// (ThrottlingException, ModelError, ModelNotReadyException, ...).
//
// It is shared by the simulator (internal/sim) and the SageMaker emulator
// proxy (internal/proxy) so both speak exactly the same wire format. Framing
// uses the AWS SDK's own encoder (github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream).
// The package only writes; decoding is the AWS SDK's job on the client side.
package eventstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	awses "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// ContentType is the HTTP Content-Type of an event-stream response body.
const ContentType = "application/vnd.amazon.eventstream"

// PartSize says where PayloadPart boundaries fall.
//
// A fixed size N cuts the byte stream on a grid of N bytes counted from the
// start of the stream, so boundaries land anywhere: inside "data:", inside a
// JSON string, inside a multi-byte UTF-8 sequence, between the two "\n" of an
// SSE terminator. Bytes are never held back waiting for a part to fill: the
// tail of each write goes out as a short part, and the next write first
// completes that grid cell; so a part holds the end of one SSE event and the
// start of the next only when both were in one write (the simulator writes a
// stream's last events together behind SageMaker; the proxy forwards
// whatever one upstream read returned). Random sizes are drawn per part from
// 1..16 bytes, with an empty part (legal on the wire) interleaved about once
// in twenty.
type PartSize struct {
	// N is the fixed part size in bytes; ignored when Random is set.
	N int
	// Random draws part sizes from a seeded generator instead.
	Random bool
}

// DefaultPartSize is used when no size is configured: large enough that an
// SSE event usually travels in one part, as on a real endpoint.
var DefaultPartSize = PartSize{N: 4096}

// ParsePartSize reads a part size: a positive byte count ("1", "7", "4096")
// or "random".
func ParsePartSize(s string) (PartSize, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "random") {
		return PartSize{Random: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return PartSize{}, fmt.Errorf("part size %q: want a positive number of bytes or \"random\"", s)
	}
	return PartSize{N: n}, nil
}

// String gives the size as ParsePartSize accepts it.
func (p PartSize) String() string {
	if p.Random {
		return "random"
	}
	if p.N <= 0 {
		return DefaultPartSize.String()
	}
	return strconv.Itoa(p.N)
}

// Writer frames a byte stream as PayloadPart messages on an HTTP response.
// It is not safe for concurrent use: one Writer (and so one AWS encoder,
// which keeps internal buffers, docs/sagemaker.md#event-stream-encoders-in-fakes) per stream.
type Writer struct {
	w      io.Writer
	flush  func()
	enc    *awses.Encoder
	size   PartSize
	rng    *rand.Rand
	off    int64 // bytes of payload written so far (the fixed-size grid)
	frame  bytes.Buffer
	frames int
}

// NewWriter returns a Writer that writes frames to w and, if w is an
// http.Flusher, flushes after each Write so parts leave as they are made.
// seed drives random part sizes (same seed, same boundaries).
func NewWriter(w io.Writer, size PartSize, seed uint64) *Writer {
	if !size.Random && size.N <= 0 {
		size = DefaultPartSize
	}
	ew := &Writer{w: w, flush: func() {}, enc: awses.NewEncoder(), size: size}
	if f, ok := w.(http.Flusher); ok {
		ew.flush = f.Flush
	}
	if size.Random {
		ew.rng = rand.New(rand.NewPCG(seed, 0x5eed))
	}
	return ew
}

// Frames reports how many event-stream messages have been written.
func (e *Writer) Frames() int { return e.frames }

// Write splits p into PayloadParts, writes them all and flushes once. It
// returns len(p) on success. An empty p writes one empty PayloadPart.
func (e *Writer) Write(p []byte) (int, error) {
	e.frame.Reset()
	n := len(p)
	if n == 0 {
		if err := e.appendPart(nil); err != nil {
			return 0, err
		}
	}
	for len(p) > 0 {
		k := e.nextLen(len(p))
		if err := e.appendPart(p[:k]); err != nil {
			return 0, err
		}
		e.off += int64(k)
		p = p[k:]
	}
	if _, err := e.w.Write(e.frame.Bytes()); err != nil {
		return 0, err
	}
	e.flush()
	return n, nil
}

// nextLen is the length of the next part given avail bytes left in this write.
func (e *Writer) nextLen(avail int) int {
	var k int
	if e.size.Random {
		if e.rng.IntN(20) == 0 {
			_ = e.appendPart(nil) // an interleaved empty part
		}
		k = 1 + e.rng.IntN(16)
	} else {
		k = e.size.N - int(e.off%int64(e.size.N))
	}
	return min(k, avail)
}

func (e *Writer) appendPart(b []byte) error {
	e.frames++
	return e.enc.Encode(&e.frame, awses.Message{
		Headers: awses.Headers{
			{Name: ":event-type", Value: awses.StringValue("PayloadPart")},
			{Name: ":content-type", Value: awses.StringValue("application/octet-stream")},
			{Name: ":message-type", Value: awses.StringValue("event")},
		},
		Payload: b,
	})
}

// Mid-stream exception names (the ResponseStream union's error members).
const (
	ModelStreamError      = "ModelStreamError"
	InternalStreamFailure = "InternalStreamFailure"
)

// Documented ModelStreamError codes.
const (
	CodeModelInvocationTimeExceeded = "ModelInvocationTimeExceeded"
	CodeStreamBroken                = "StreamBroken"
)

// WriteException writes a modeled exception frame (":message-type"
// exception) whose JSON payload is {"Message": msg, "ErrorCode": code}; code
// "" omits ErrorCode (InternalStreamFailure has none). The AWS SDK surfaces
// it through the event stream's Err() as *types.ModelStreamError or
// *types.InternalStreamFailure.
func (e *Writer) WriteException(name, code, msg string) error {
	body := map[string]string{"Message": msg}
	if code != "" {
		body["ErrorCode"] = code
	}
	payload, _ := json.Marshal(body)
	return e.writeMessage(awses.Message{
		Headers: awses.Headers{
			{Name: ":exception-type", Value: awses.StringValue(name)},
			{Name: ":content-type", Value: awses.StringValue("application/json")},
			{Name: ":message-type", Value: awses.StringValue("exception")},
		},
		Payload: payload,
	})
}

// WriteError writes an unmodeled ":message-type error" frame, which the SDK
// reports as a generic API error with that code and message.
func (e *Writer) WriteError(code, msg string) error {
	return e.writeMessage(awses.Message{
		Headers: awses.Headers{
			{Name: ":error-code", Value: awses.StringValue(code)},
			{Name: ":error-message", Value: awses.StringValue(msg)},
			{Name: ":message-type", Value: awses.StringValue("error")},
		},
	})
}

// writeMessage encodes one message, writes it and flushes.
func (e *Writer) writeMessage(m awses.Message) error {
	e.frame.Reset()
	e.frames++
	if err := e.enc.Encode(&e.frame, m); err != nil {
		return err
	}
	if _, err := e.w.Write(e.frame.Bytes()); err != nil {
		return err
	}
	e.flush()
	return nil
}
