package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// classedError is an error with its Response.ErrClass.
type classedError struct {
	class string
	err   error
}

func (e *classedError) Error() string { return e.err.Error() }
func (e *classedError) Unwrap() error { return e.err }

func failf(class, format string, a ...any) error {
	return &classedError{class: class, err: fmt.Errorf(format, a...)}
}

// maxPending bounds a JSON value held across lines while it does not parse
// (a pretty-printed or oddly split message). Beyond it the stream is
// malformed, not a reason to grow memory without limit.
const maxPending = 1 << 20

// tokenDecoder is the Receiver of FormatTGI and FormatLMI: it reads the
// TGI generate_stream (SSE, "data:{...}") and LMI (JSON lines) token
// streams, which differ only in framing, read per line with FramingAny
// (docs/sagemaker.md#payload-formats). Each line holding a "token" object
// is one token chunk, stamped with the time of the read that completed the
// line. The line with a non-null generated_text or details is the end
// marker; a stream without one is truncated even if the transport reported
// no error (docs/sagemaker.md#truncated-streams).
type tokenDecoder struct {
	resp  *backend.Response
	lines LineSplitter
	text  strings.Builder
	meter Meter // text, stamps, the incomplete line and pending

	pending  []byte // a line that did not parse yet, joined to the next
	terminal bool   // the final line arrived
	now      time.Time
}

// tokenLine is one TGI/LMI stream message. Fields absent from a format are
// simply nil.
type tokenLine struct {
	Token *struct {
		// ID is a number (TGI, LMI) or a list ([-1] on LMI errors).
		ID      json.RawMessage `json:"id"`
		Text    *string         `json:"text"`
		Special bool            `json:"special"`
	} `json:"token"`
	GeneratedText *string `json:"generated_text"`
	Details       *struct {
		FinishReason    *string `json:"finish_reason"`
		GeneratedTokens *int    `json:"generated_tokens"`
		InputLength     *int    `json:"input_length"`
	} `json:"details"`
	// Error is TGI's {"error": "...", "error_type": "..."} (a string) or
	// an OpenAI-style error object.
	Error     json.RawMessage `json:"error"`
	ErrorType string          `json:"error_type"`
}

// Feed takes bytes received at now (Receiver).
func (d *tokenDecoder) Feed(p []byte, now time.Time) error {
	d.now = now
	if err := d.lines.Feed(p, d.line); err != nil {
		d.setErr(err)
		return err
	}
	return nil
}

// Finish decides the outcome of a stream that ended cleanly (Receiver):
// the final line must have arrived after at least one token, and its
// finish_reason must not be "error".
func (d *tokenDecoder) Finish(now time.Time) error {
	d.now = now
	if err := d.end(); err != nil {
		d.setErr(err)
	}
	return d.resp.Err
}

// Fail records a transport failure (Receiver).
func (d *tokenDecoder) Fail(class string, err error) {
	d.setErr(&classedError{class: class, err: err})
}

// Release returns the response's reservation (Receiver).
func (d *tokenDecoder) Release() { d.meter.Release() }

// setErr records the first failure and the text received so far.
func (d *tokenDecoder) setErr(err error) {
	r := d.resp
	r.Text = d.text.String()
	if r.Err != nil {
		return
	}
	var ce *classedError
	if errors.As(err, &ce) {
		r.Err, r.ErrClass = ce.err, ce.class
		return
	}
	r.Err, r.ErrClass = err, record.ErrMalformedStream
	if errors.Is(err, ErrResponseTooLarge) {
		r.Err, r.ErrClass = fmt.Errorf("after %d token chunks: %w", r.Chunks.Len(), err), record.ErrResponseTooLarge
	}
}

// end decides the outcome of a stream that ended cleanly.
func (d *tokenDecoder) end() error {
	if err := d.lines.Flush(d.line); err != nil {
		return err
	}
	if len(d.pending) > 0 {
		return failf(record.ErrStreamTruncated, "stream ended inside a message (%d bytes of incomplete JSON held: %.80q)", len(d.pending), d.pending)
	}
	d.resp.Text = d.text.String()
	if !d.terminal {
		return failf(record.ErrStreamTruncated, "stream ended without the final line (generated_text/details) after %d token chunks", d.resp.Chunks.Len())
	}
	if d.resp.Chunks.Len() == 0 {
		return failf(record.ErrNoContent, "stream ended without a token")
	}
	if d.resp.FinishReason == "error" {
		return failf(ClassServerError, "the server ended generation with finish_reason \"error\"")
	}
	return nil
}

// line handles one complete line.
func (d *tokenDecoder) line(raw []byte) error {
	var l []byte
	if len(d.pending) == 0 {
		fr, payload := cutFrame(raw, FramingAny)
		if fr != frameMessage {
			return nil // blank, comment, an SSE field, [DONE]
		}
		l = payload
	} else {
		var blank bool
		if l, blank = continuation(raw); blank {
			return nil
		}
		if err := d.meter.Pending(len(d.pending) + len(l) + 1); err != nil {
			return err
		}
		if len(d.pending)+len(l)+1 > maxPending {
			return failf(record.ErrMalformedStream, "more than %d bytes that do not parse as JSON", maxPending)
		}
		d.pending = append(d.pending, '\n')
		d.pending = append(d.pending, l...)
		l = d.pending
	}
	var m tokenLine
	if err := json.Unmarshal(l, &m); err != nil {
		if incomplete(err) {
			// Incomplete JSON: hold it and try again with the next line.
			if len(d.pending) == 0 {
				if err := d.meter.Pending(len(l)); err != nil {
					return err
				}
				if len(l) > maxPending {
					return failf(record.ErrMalformedStream, "more than %d bytes that do not parse as JSON", maxPending)
				}
				d.pending = append(d.pending[:0], l...)
			}
			return nil
		}
		return failf(record.ErrMalformedStream, "stream message does not parse: %v (%.80q)", plainJSONError(err), l)
	}
	d.pending = d.pending[:0]
	_ = d.meter.Pending(0) // shrinking never fails
	return d.apply(&m)
}

// apply takes one parsed message into the response.
func (d *tokenDecoder) apply(m *tokenLine) error {
	if len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null")) {
		msg := errorText(m.Error)
		if m.ErrorType != "" {
			msg = m.ErrorType + ": " + msg
		}
		return failf(ClassServerError, "the server sent an error inside the stream: %s", msg)
	}
	finish := ""
	if m.Details != nil {
		if m.Details.FinishReason != nil {
			finish = *m.Details.FinishReason
		}
		if m.Details.GeneratedTokens != nil {
			n := *m.Details.GeneratedTokens
			d.resp.CompletionTokens = &n
		}
		if m.Details.InputLength != nil {
			n := *m.Details.InputLength
			d.resp.PromptTokens = &n
		}
	}
	if m.Token != nil && finish != "error" {
		text := ""
		if m.Token.Text != nil && !m.Token.Special {
			text = *m.Token.Text
		}
		if err := d.meter.Keep(len(text) + ChunkStampBytes); err != nil {
			return err
		}
		d.resp.Chunks.Append(d.now)
		d.text.WriteString(text)
	}
	if finish != "" {
		d.resp.FinishReason = finish
	}
	if m.GeneratedText != nil || m.Details != nil {
		d.terminal = true
	}
	return nil
}

// incomplete reports encoding/json's error for input that stops in the
// middle of a value: what a message cut at a line break gives.
func incomplete(err error) bool {
	var syn *json.SyntaxError
	return errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input"
}

// plainJSONError says what is wrong with a message that is JSON but not
// the shape TGI/LMI send, in the stream's terms: encoding/json's own text
// names this package's Go types ("into Go value of type stream.tokenLine"),
// which mean nothing to someone reading a failed request.
func plainJSONError(err error) any {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	if te.Field == "" {
		return "a JSON " + te.Value + ", not an object"
	}
	return fmt.Sprintf("%q is a JSON %s, not %s", te.Field, te.Value, jsonKind(te.Type))
}

// jsonKind names the JSON a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice:
		return "an array"
	}
	return "of the expected type"
}

// errorText renders an error value: a JSON string as its text, an object's
// "message" if it has one, else the raw JSON (bounded).
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	if len(raw) > 200 {
		raw = raw[:200]
	}
	return string(raw)
}
