package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// oldClassedError is an error with its Response.ErrClass.
type oldClassedError struct {
	class string
	err   error
}

func (e *oldClassedError) Error() string { return e.err.Error() }
func (e *oldClassedError) Unwrap() error { return e.err }

func oldFailf(class, format string, a ...any) error {
	return &oldClassedError{class: class, err: fmt.Errorf(format, a...)}
}

// oldMaxPending bounds a JSON value held across lines while it does not parse
// (a pretty-printed or oddly split message). Beyond it the stream is
// malformed, not a reason to grow memory without limit.
const oldMaxPending = 1 << 20

// oldTokenDecoder reads the TGI generate_stream (SSE, "data:{...}") and LMI
// (JSON lines) token streams; they differ only in framing, and the framing
// is detected per line (docs/sagemaker.md#payload-formats: strip an optional "data:" prefix). Each line
// holding a "token" object is one token chunk, stamped with the time of the
// part that completed the line. The line with a non-null generated_text or
// details is the end marker; a stream without one is truncated even if the
// SDK reported no error (docs/sagemaker.md#truncated-streams).
type oldTokenDecoder struct {
	resp  *backend.Response
	lines LineSplitter
	text  strings.Builder
	meter Meter // text, stamps, the oldIncomplete line and pending

	pending  []byte // a line that did not parse yet, joined to the next
	terminal bool   // the final line arrived
	now      time.Time
}

func oldNewTokenDecoder(resp *backend.Response) *oldTokenDecoder {
	return &oldTokenDecoder{resp: resp}
}

// oldTokenLine is one TGI/LMI stream message. Fields absent from a format are
// simply nil.
type oldTokenLine struct {
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

func (d *oldTokenDecoder) feed(p []byte, now time.Time) error {
	d.now = now
	if err := d.lines.Feed(p, d.line); err != nil {
		d.setErr(err)
		return err
	}
	return nil
}

func (d *oldTokenDecoder) finish(now time.Time) {
	d.now = now
	if err := d.end(); err != nil {
		d.setErr(err)
	}
}

func (d *oldTokenDecoder) fail(class string, err error) {
	d.setErr(&oldClassedError{class: class, err: err})
}

func (d *oldTokenDecoder) release() { d.meter.Release() }

// setErr records the first failure and the text received so far.
func (d *oldTokenDecoder) setErr(err error) {
	r := d.resp
	r.Text = d.text.String()
	if r.Err != nil {
		return
	}
	var ce *oldClassedError
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
func (d *oldTokenDecoder) end() error {
	if err := d.lines.Flush(d.line); err != nil {
		return err
	}
	if len(d.pending) > 0 {
		return oldFailf(record.ErrStreamTruncated, "stream ended inside a message (%d bytes of incomplete JSON held: %.80q)", len(d.pending), d.pending)
	}
	d.resp.Text = d.text.String()
	if !d.terminal {
		return oldFailf(record.ErrStreamTruncated, "stream ended without the final line (generated_text/details) after %d token chunks", d.resp.Chunks.Len())
	}
	if d.resp.Chunks.Len() == 0 {
		return oldFailf(record.ErrNoContent, "stream ended without a token")
	}
	if d.resp.FinishReason == "error" {
		return oldFailf(ClassServerError, "the server ended generation with finish_reason \"error\"")
	}
	return nil
}

// line handles one complete line.
func (d *oldTokenDecoder) line(raw []byte) error {
	l := bytes.TrimSpace(raw)
	if len(d.pending) == 0 {
		if len(l) == 0 || l[0] == ':' {
			return nil // blank line (SSE event end, LMI's end-of-stream) or SSE comment
		}
		if rest, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			l = bytes.TrimSpace(rest)
		} else if oldIsSSEField(l) {
			return nil // event:, id:, retry:
		}
		if len(l) == 0 || bytes.Equal(l, []byte("[DONE]")) {
			return nil
		}
	} else {
		if len(l) == 0 {
			return nil
		}
		if rest, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			l = bytes.TrimSpace(rest)
		}
		if err := d.meter.Pending(len(d.pending) + len(l) + 1); err != nil {
			return err
		}
		if len(d.pending)+len(l)+1 > oldMaxPending {
			return oldFailf(record.ErrMalformedStream, "more than %d bytes that do not parse as JSON", oldMaxPending)
		}
		d.pending = append(d.pending, '\n')
		d.pending = append(d.pending, l...)
		l = d.pending
	}
	var m oldTokenLine
	if err := json.Unmarshal(l, &m); err != nil {
		if oldIncomplete(err) {
			// Incomplete JSON: hold it and try again with the next line.
			if len(d.pending) == 0 {
				if err := d.meter.Pending(len(l)); err != nil {
					return err
				}
				if len(l) > oldMaxPending {
					return oldFailf(record.ErrMalformedStream, "more than %d bytes that do not parse as JSON", oldMaxPending)
				}
				d.pending = append(d.pending[:0], l...)
			}
			return nil
		}
		return oldFailf(record.ErrMalformedStream, "stream message does not parse: %v (%.80q)", err, l)
	}
	d.pending = d.pending[:0]
	_ = d.meter.Pending(0) // shrinking never fails
	return d.apply(&m)
}

// apply takes one parsed message into the response.
func (d *oldTokenDecoder) apply(m *oldTokenLine) error {
	if len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null")) {
		msg := oldErrorText(m.Error)
		if m.ErrorType != "" {
			msg = m.ErrorType + ": " + msg
		}
		return oldFailf(ClassServerError, "the server sent an error inside the stream: %s", msg)
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

// oldIncomplete reports encoding/json's error for input that stops in the
// middle of a value: what a message cut at a line break gives.
func oldIncomplete(err error) bool {
	var syn *json.SyntaxError
	return errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input"
}

// oldIsSSEField reports an SSE field line other than data: (event:, id:,
// retry:), which carries nothing a benchmark reads.
func oldIsSSEField(l []byte) bool {
	for _, f := range []string{"event:", "id:", "retry:"} {
		if bytes.HasPrefix(l, []byte(f)) {
			return true
		}
	}
	return false
}

// oldErrorText renders an error value: a JSON string as its text, an object's
// "message" if it has one, else the raw JSON (bounded).
func oldErrorText(raw json.RawMessage) string {
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
