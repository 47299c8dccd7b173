package stream

// The members of an OpenAI streaming message, read one value at a time
// by Decoder (json.go): choices, delta, usage, error, finish_reason.

import (
	"fmt"
	"math"
	"strconv"
)

// decodeState is what Decode learns across the top-level members.
type decodeState struct {
	textSet, contentSet bool
	isErrorObject       bool
	topMessage          []byte
}

// member reads the value of one top-level member.
func (d *work) member(key []byte, st *decodeState) error {
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
func (d *work) errorValue() error {
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
func (d *work) choices() (n int, textSet, contentSet bool, err error) {
	s := &d.s
	d.text, d.content, d.msg.FinishReason = nil, nil, ""
	d.textAt, d.contentAt = noSpan, noSpan
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
func (d *work) choice(textSet, contentSet *bool) error {
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
			d.text, *textSet, err = d.optString(&d.textBuf, &d.textAt)
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
func (d *work) finishReason() error {
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
func (d *work) delta() (content []byte, set bool, err error) {
	s := &d.s
	d.contentAt = noSpan
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
			content, set, err = d.optString(&d.contentBuf, &d.contentAt)
		} else {
			err = s.Skip()
		}
		if err != nil {
			return content, set, err
		}
	}
}

// usage reads the "usage" value: null or an object with token counts.
func (d *work) usage() error {
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
// text (in the message, or unescaped into *buf), reports set and sets *at
// to where its contents lie; for null it returns nil. Any other type is an
// error.
func (d *work) optString(buf *[]byte, at *span) (v []byte, set bool, err error) {
	*at = noSpan
	if d.s.Null() {
		return nil, false, nil
	}
	if d.s.Peek() != '"' {
		return nil, false, d.s.Errorf("expected a string or null")
	}
	start := d.s.Offset() + 1
	v, err = d.s.String(buf)
	if err == nil {
		*at = span{start, d.s.Offset() - 1}
	}
	return v, err == nil, err
}

// string reads a string value into the scratch buffer (or in place), valid
// until the next read.
func (d *work) string() ([]byte, error) {
	if d.s.Peek() != '"' {
		return nil, d.s.Errorf("expected a string or null")
	}
	return d.s.String(&d.scratch)
}

// stringOrSkip reads a string value, or skips any other value; isStr tells
// which happened (false on error).
func (d *work) stringOrSkip() (v []byte, isStr bool, err error) {
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
func (d *work) count(name string) (int, error) {
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
