package stream

import (
	"fmt"
	"math"
	"strconv"

	"github.com/llmbench/llmbench/internal/jsonscan"
)

// Mode selects which field of a token chunk carries its text.
type Mode uint8

const (
	// ModeAuto (the zero value) takes choices[0].text when it is a string,
	// else choices[0].delta.content. Use it when the API is not known.
	ModeAuto Mode = iota
	// ModeCompletions takes choices[0].text only (/v1/completions), as vLLM
	// does for its completions backend.
	ModeCompletions
	// ModeChat takes choices[0].delta.content only (/v1/chat/completions).
	// Reasoning fields (reasoning_content, reasoning) are not text, as in
	// vLLM, but a chunk carrying only them is still a token chunk.
	ModeChat
)

// Message is what Decoder found in one JSON message. Its byte slices point
// into the message itself (a string without escapes) or the Decoder's
// buffers, and are valid until the next Decode or until the message's
// bytes change, whichever comes first.
type Message struct {
	// Choices is the length of the "choices" array (0 when absent or null).
	// A message with Choices > 0 is a token chunk, whatever its text.
	Choices int
	// Text is the decoded text of choices[0] chosen by the Mode; empty when
	// the field is absent, null or "".
	Text []byte
	// FinishReason is choices[0].finish_reason; "" when absent or null.
	FinishReason string
	// Usage is true when "usage" is a non-empty object (Python truthiness,
	// as vLLM tests it).
	Usage bool
	// PromptTokens and CompletionTokens are usage.prompt_tokens and
	// usage.completion_tokens; -1 when absent or null.
	PromptTokens     int
	CompletionTokens int
	// ErrorMessage is set when the message is an error object
	// ({"error": {"message": ...}} or {"object": "error", "message": ...}),
	// which some servers send mid-stream.
	ErrorMessage string
}

// Decoder decodes OpenAI-style streaming JSON messages. It validates the
// whole message (anything encoding/json would reject is an error) while
// picking out only the fields a benchmark needs, so that decoding a typical
// chunk allocates nothing. The zero value is ready to use; a Decoder is not
// safe for concurrent use.
type Decoder struct {
	// Mode selects the text field; see Mode.
	Mode Mode

	s jsonscan.Scanner
	// text and content are choices[0].text and choices[0].delta.content:
	// in the message when they have no escapes (the usual case: not
	// copied, so no buffer of the Decoder's is written per chunk, one
	// cold cache line less at 1,000 streams; BENCHMARKS.md, "Cache lines
	// per chunk"), otherwise unescaped into textBuf and contentBuf.
	text, content       []byte
	textBuf, contentBuf []byte
	scratch             []byte // strings read only to compare or copy
	msg                 Message

	// head is the start of the last message read from its start, up to
	// its "choices" member and the byte after the value before it; at is the
	// scanner's place there and members the members before it. A stream's
	// messages begin alike ({"id":…,"object":…,"created":…,"model":…), so
	// a message that begins with head is read from at, not again from its
	// start: about half of each chunk (BENCHMARKS.md, "The head of a
	// chunk"). Only members that change nothing the Decoder reports may
	// be in head (see remember).
	head    []byte
	at      jsonscan.Mark
	members int
}

// errSyntax is wrapped by every malformed-JSON error.
var errSyntax = jsonscan.ErrSyntax

// Decode parses one JSON message. The returned Message is owned by the
// Decoder and valid until the next call. Objects are read in loops, not
// through jsonscan's callbacks: fewer and smaller frames per chunk
// (jsonscan.Scanner.BeginObject says why that matters).
func (d *Decoder) Decode(b []byte) (*Message, error) {
	d.msg = Message{PromptTokens: -1, CompletionTokens: -1}
	d.text, d.content = nil, nil
	var st decodeState
	i, err := d.begin(b)
	if err != nil {
		return nil, err
	}
	s := &d.s
	fresh := i == 0
	for ; ; i++ {
		at := s.Mark()
		key, ok, err := s.Member(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if fresh && i > 0 && string(key) == "choices" {
			fresh = false
			d.remember(b, at, i, &st)
		}
		if err := d.member(key, &st); err != nil {
			return nil, err
		}
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	if st.isErrorObject && d.msg.ErrorMessage == "" {
		d.msg.ErrorMessage = string(st.topMessage)
		if d.msg.ErrorMessage == "" {
			d.msg.ErrorMessage = "error object without a message"
		}
	}
	switch {
	case d.Mode == ModeCompletions || (d.Mode == ModeAuto && st.textSet):
		d.msg.Text = d.text
	case d.Mode == ModeChat || st.contentSet:
		d.msg.Text = d.content
	}
	return &d.msg, nil
}

// begin starts reading b: after the '{', or after the head it shares
// with an earlier message. It returns the members already read.
func (d *Decoder) begin(b []byte) (members int, err error) {
	s := &d.s
	if n := len(d.head); n > 0 && len(b) >= n && string(b[:n]) == string(d.head) {
		s.ResumeAt(b, d.at)
		return d.members, nil
	}
	d.head = d.head[:0]
	s.Reset(b)
	if s.Peek() != '{' {
		return 0, s.Errorf("message is not a JSON object")
	}
	return 0, s.BeginObject()
}

// remember keeps b's head, the members before "choices" at at, when
// reading them changed nothing: a message that begins the same way can
// then start at at with the Decoder as it is at the start of a message.
func (d *Decoder) remember(b []byte, at jsonscan.Mark, members int, st *decodeState) {
	m := &d.msg
	neutral := !st.isErrorObject && len(st.topMessage) == 0 && m.Choices == 0 && !m.Usage &&
		m.PromptTokens == -1 && m.CompletionTokens == -1 && m.ErrorMessage == ""
	if !neutral || at.Offset() >= len(b) || at.Offset() > maxHead {
		return
	}
	d.head = append(d.head[:0], b[:at.Offset()+1]...)
	d.at, d.members = at, members
}

// maxHead bounds the head kept: a stream's is ~100 bytes; a server that
// pads its messages must not make every stream hold a copy of the padding.
const maxHead = 512

// decodeState is what Decode learns across the top-level members.
type decodeState struct {
	textSet, contentSet bool
	isErrorObject       bool
	topMessage          []byte
}

// member reads the value of one top-level member.
func (d *Decoder) member(key []byte, st *decodeState) error {
	s := &d.s
	switch string(key) {
	case "choices":
		n, tSet, cSet, err := d.choices()
		d.msg.Choices = n
		st.textSet, st.contentSet = tSet, cSet
		return err
	case "usage":
		return d.usage()
	case "error":
		return d.errorValue()
	case "object":
		v, isStr, err := d.stringOrSkip()
		st.isErrorObject = isStr && string(v) == "error"
		return err
	case "message":
		st.topMessage = st.topMessage[:0]
		v, isStr, err := d.stringOrSkip()
		if isStr {
			st.topMessage = append(st.topMessage, v...)
		}
		return err
	}
	return s.Skip()
}

// errorValue reads "error": an object with a message, or a string.
func (d *Decoder) errorValue() error {
	s := &d.s
	d.msg.ErrorMessage = ""
	if s.Peek() == '{' {
		return s.Object(func(k []byte) error {
			if string(k) == "message" {
				d.msg.ErrorMessage = ""
				v, isStr, err := d.stringOrSkip()
				if isStr {
					d.msg.ErrorMessage = string(v)
				}
				return err
			}
			return s.Skip()
		})
	}
	v, isStr, err := d.stringOrSkip()
	if isStr {
		d.msg.ErrorMessage = string(v)
	}
	return err
}

// choices reads the choices array; only choices[0] is decoded (vLLM reads
// choices[0]), the rest validated and counted.
func (d *Decoder) choices() (n int, textSet, contentSet bool, err error) {
	s := &d.s
	d.text, d.content, d.msg.FinishReason = nil, nil, ""
	if s.Null() {
		return 0, false, false, nil
	}
	if s.Peek() != '[' {
		return 0, false, false, s.Errorf("choices is not an array")
	}
	if err := s.BeginArray(); err != nil {
		return 0, false, false, err
	}
	for ; ; n++ {
		ok, err := s.Element(n)
		if err != nil || !ok {
			return n, textSet, contentSet, err
		}
		if n > 0 {
			err = s.Skip()
		} else {
			err = d.choice(&textSet, &contentSet)
		}
		if err != nil {
			return n + 1, textSet, contentSet, err
		}
	}
}

// choice reads choices[0].
func (d *Decoder) choice(textSet, contentSet *bool) error {
	s := &d.s
	if s.Peek() != '{' {
		return s.Errorf("choices[0] is not an object")
	}
	if err := s.BeginObject(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		key, ok, err := s.Member(i)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "text":
			d.text, *textSet, err = d.optString(&d.textBuf)
		case "finish_reason":
			err = d.finishReason()
		case "delta":
			d.content, *contentSet, err = d.delta()
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
}

// finishReason reads choices[0].finish_reason: null or a string.
func (d *Decoder) finishReason() error {
	d.msg.FinishReason = ""
	if d.s.Null() {
		return nil
	}
	v, err := d.string()
	if err == nil {
		d.msg.FinishReason = internReason(v)
	}
	return err
}

// delta reads choices[0].delta (chat), keeping its content.
func (d *Decoder) delta() (content []byte, set bool, err error) {
	s := &d.s
	if s.Null() {
		return content, false, nil
	}
	if s.Peek() != '{' {
		return content, false, s.Errorf("choices[0].delta is not an object")
	}
	if err := s.BeginObject(); err != nil {
		return content, false, err
	}
	for i := 0; ; i++ {
		key, ok, err := s.Member(i)
		if err != nil || !ok {
			return content, set, err
		}
		if string(key) == "content" {
			content, set, err = d.optString(&d.contentBuf)
		} else {
			err = s.Skip()
		}
		if err != nil {
			return content, set, err
		}
	}
}

// usage reads the "usage" value: null or an object with token counts.
func (d *Decoder) usage() error {
	s := &d.s
	d.msg.Usage = false
	d.msg.PromptTokens, d.msg.CompletionTokens = -1, -1
	if s.Null() {
		return nil
	}
	if s.Peek() != '{' {
		return s.Errorf("usage is not an object")
	}
	if err := s.BeginObject(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		key, ok, err := s.Member(i)
		if err != nil || !ok {
			return err
		}
		d.msg.Usage = true
		switch string(key) { // constants below: k := string(key) would escape into count's errors
		case "prompt_tokens":
			d.msg.PromptTokens, err = d.count("prompt_tokens")
		case "completion_tokens":
			d.msg.CompletionTokens, err = d.count("completion_tokens")
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
}

// optString reads a string or null. For a string it returns the decoded
// text (in the message, or unescaped into *buf) and reports set; for null
// it returns nil. Any other type is an error.
func (d *Decoder) optString(buf *[]byte) (v []byte, set bool, err error) {
	if d.s.Null() {
		return nil, false, nil
	}
	if d.s.Peek() != '"' {
		return nil, false, d.s.Errorf("expected a string or null")
	}
	v, err = d.s.String(buf)
	return v, err == nil, err
}

// string reads a string value into the scratch buffer (or in place), valid
// until the next read.
func (d *Decoder) string() ([]byte, error) {
	if d.s.Peek() != '"' {
		return nil, d.s.Errorf("expected a string or null")
	}
	return d.s.String(&d.scratch)
}

// stringOrSkip reads a string value, or skips any other value; isStr tells
// which happened (false on error).
func (d *Decoder) stringOrSkip() (v []byte, isStr bool, err error) {
	if d.s.Peek() != '"' {
		return nil, false, d.s.Skip()
	}
	v, err = d.s.String(&d.scratch)
	return v, err == nil, err
}

// internReason returns common finish reasons without allocating.
func internReason(v []byte) string {
	switch string(v) {
	case "":
		return ""
	case "length":
		return "length"
	case "stop":
		return "stop"
	case "eos_token":
		return "eos_token"
	case "stop_sequence":
		return "stop_sequence"
	case "tool_calls":
		return "tool_calls"
	case "abort":
		return "abort"
	}
	return string(v)
}

// count reads a token count: a non-negative integer (12 or 12.0), or null
// (returned as -1).
func (d *Decoder) count(name string) (int, error) {
	s := &d.s
	if s.Null() {
		return -1, nil
	}
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		return 0, s.Errorf("usage.%s is not a number", name)
	}
	raw, err := s.Number()
	if err != nil {
		return 0, err
	}
	if v, err := strconv.Atoi(string(raw)); err == nil {
		if v < 0 || v > math.MaxInt32 {
			return 0, fmt.Errorf("%w: usage.%s is out of range (%d)", errSyntax, name, v)
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("%w: usage.%s is not a non-negative integer (%s)", errSyntax, name, raw)
	}
	return int(f), nil
}
