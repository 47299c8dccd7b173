package sim

import (
	"strconv"
	"unicode/utf8"
)

// gen is one request's deterministic output: token i is a vocabulary word
// chosen from a hash of the prompt and the seed, so the same request gets
// the same text over every API. When eos is set the last token is the EOS
// token, which carries no text (as vLLM skips special tokens).
type gen struct {
	h      uint64
	target int
	eos    bool
}

func (g *gen) wordIndex(i int) int { return int((g.h + uint64(i)*7919) % uint64(len(vocab))) }

// isEOS reports whether token i is the final EOS token.
func (g *gen) isEOS(i int) bool { return g.eos && i == g.target-1 }

// text is token i's text: " word", or "" for EOS.
func (g *gen) text(i int) string {
	if g.isEOS(i) {
		return ""
	}
	return vocabSp[g.wordIndex(i)]
}

// id is token i's id in WordTokenizer numbering (EOS = 0).
func (g *gen) id(i int) int {
	if g.isEOS(i) {
		return 0
	}
	return g.wordIndex(i) + 2
}

// fullText is the text of all tokens.
func (g *gen) fullText() string {
	b := make([]byte, 0, g.target*7)
	for i := range g.target {
		b = append(b, g.text(i)...)
	}
	return string(b)
}

var vocabSp = func() []string {
	s := make([]string, len(vocab))
	for i, w := range vocab {
		s[i] = " " + w
	}
	return s
}()

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, valid UTF-8 kept as is, invalid bytes
// replaced by U+FFFD (as encoding/json does).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// usageJSON appends {"prompt_tokens":P,"total_tokens":P+C,"completion_tokens":C}
// in vLLM's key order, as streamed chunks carry it (vLLM drops the null
// prompt_tokens_details there; whole bodies keep it, see wholeUsageJSON).
func usageJSON(b []byte, prompt, completion int) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	return append(b, '}')
}

// wholeUsageJSON is usageJSON as a non-streamed body carries it.
func wholeUsageJSON(b []byte, prompt, completion int) []byte {
	b = usageJSON(b, prompt, completion)
	return append(b[:len(b)-1], `,"prompt_tokens_details":null}`...)
}

// framing says how events are delimited on the wire.
type framing int

const (
	framingSSE      framing = iota // "data: <json>\n\n"
	framingSSETight                // TGI: "data:<json>\n\n"
	framingJSONL                   // "<json>\n"
)

// encoder builds the bytes of one request's stream in one payload format.
// Every method appends whole events to b and returns it.
type encoder struct {
	kind     Kind
	format   string // FormatOpenAI / FormatTGI / FormatLMI
	framing  framing
	crlf     bool
	g        *gen
	prompt   int
	id       string
	created  int64
	model    string
	details  bool
	contUsg  bool
	inputs   string
	finish   string // final finish reason
	envelope []byte // openai: {"id":...,"model":...,
}

func newEncoder(kind Kind, format string, fr framing, crlf bool, g *gen, prompt int,
	id string, created int64, model string, r *Request) *encoder {
	e := &encoder{kind: kind, format: format, framing: fr, crlf: crlf, g: g, prompt: prompt,
		id: id, created: created, model: model, details: r.Details, contUsg: r.ContinuousUsage, inputs: r.Prompt}
	e.finish = "length"
	if g.eos {
		e.finish = "stop"
		if kind == KindGenerate {
			e.finish = "eos_token"
		}
	}
	obj := "text_completion"
	if kind == KindChat {
		obj = "chat.completion.chunk"
	}
	env := []byte(`{"id":`)
	env = appendJSONString(env, id)
	env = append(env, `,"object":"`+obj+`","created":`...)
	env = strconv.AppendInt(env, created, 10)
	env = append(env, `,"model":`...)
	env = appendJSONString(env, model)
	e.envelope = env
	return e
}

// begin and end wrap one event's JSON in the framing.
func (e *encoder) begin(b []byte) []byte {
	switch e.framing {
	case framingSSE:
		return append(b, "data: "...)
	case framingSSETight:
		return append(b, "data:"...)
	}
	return b
}

func (e *encoder) end(b []byte) []byte {
	switch {
	case e.framing == framingJSONL:
		return append(b, '\n')
	case e.crlf:
		return append(b, "\r\n\r\n"...)
	}
	return append(b, "\n\n"...)
}

// openAIStyle is true when the stream is OpenAI chunks (any framing).
func (e *encoder) openAIStyle() bool { return e.kind != KindGenerate }

// role appends chat's role-only first chunk; other kinds write nothing.
func (e *encoder) role(b []byte) []byte {
	if e.kind != KindChat {
		return b
	}
	b = e.begin(b)
	b = append(b, e.envelope...)
	b = append(b, `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
	if e.contUsg {
		b = append(b, `,"usage":`...)
		b = usageJSON(b, e.prompt, 0)
	}
	b = append(b, '}')
	return e.end(b)
}

// tokens appends the event(s) for tokens [from, to); the chunk holding the
// last token carries the finish reason.
func (e *encoder) tokens(b []byte, from, to int) []byte {
	last := to == e.g.target
	if !e.openAIStyle() {
		for i := from; i < to; i++ {
			b = e.generateEvent(b, i)
		}
		return b
	}
	b = e.begin(b)
	b = append(b, e.envelope...)
	var text []byte
	for i := from; i < to; i++ {
		text = append(text, e.g.text(i)...)
	}
	if e.kind == KindChat {
		b = append(b, `,"choices":[{"index":0,"delta":{"content":`...)
		b = appendJSONString(b, string(text))
		b = append(b, `},"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `,"choices":[{"index":0,"text":`...)
		b = appendJSONString(b, string(text))
		b = append(b, `,"logprobs":null,"finish_reason":`...)
	}
	switch {
	case last:
		b = append(b, '"')
		b = append(b, e.finish...)
		b = append(b, `","stop_reason":null}]`...)
	case e.kind == KindChat:
		// vLLM sets stop_reason on chat's final chunk only.
		b = append(b, `null}]`...)
	default:
		b = append(b, `null,"stop_reason":null}]`...)
	}
	if e.contUsg {
		b = append(b, `,"usage":`...)
		b = usageJSON(b, e.prompt, to)
	}
	b = append(b, '}')
	return e.end(b)
}

// generateEvent appends one TGI or LMI token event.
func (e *encoder) generateEvent(b []byte, i int) []byte {
	last := i == e.g.target-1
	b = e.begin(b)
	special := e.g.isEOS(i)
	text := e.g.text(i)
	if special && e.format == FormatTGI {
		text = "</s>"
	}
	if e.format == FormatTGI {
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"token":{"id":`...)
		b = strconv.AppendInt(b, int64(e.g.id(i)), 10)
		b = append(b, `,"text":`...)
		b = appendJSONString(b, text)
		b = append(b, `,"logprob":-0.25,"special":`...)
		b = strconv.AppendBool(b, special)
		b = append(b, `},"generated_text":`...)
		if last {
			b = appendJSONString(b, e.g.fullText())
			b = append(b, `,"details":`...)
			if e.details {
				b = append(b, `{"finish_reason":"`...)
				b = append(b, e.finish...)
				b = append(b, `","generated_tokens":`...)
				b = strconv.AppendInt(b, int64(e.g.target), 10)
				b = append(b, `,"seed":null,"input_length":`...)
				b = strconv.AppendInt(b, int64(e.prompt), 10)
				b = append(b, '}')
			} else {
				b = append(b, "null"...)
			}
		} else {
			b = append(b, `null,"details":null`...)
		}
		b = append(b, `,"top_tokens":null}`...)
		return e.end(b)
	}
	// LMI rolling batch.
	b = append(b, `{"token":{"id":`...)
	b = strconv.AppendInt(b, int64(e.g.id(i)), 10)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, text)
	b = append(b, `,"log_prob":-0.25}`...)
	if last {
		b = append(b, `,"generated_text":`...)
		b = appendJSONString(b, e.g.fullText())
		b = append(b, `,"details":{"finish_reason":"`...)
		b = append(b, e.finish...)
		b = append(b, `","generated_tokens":`...)
		b = strconv.AppendInt(b, int64(e.g.target), 10)
		b = append(b, `,"inputs":`...)
		b = appendJSONString(b, e.inputs)
		b = append(b, '}')
	}
	b = append(b, '}')
	return e.end(b)
}

// usage appends the usage-only chunk (OpenAI kinds only).
func (e *encoder) usage(b []byte) []byte {
	if !e.openAIStyle() {
		return b
	}
	b = e.begin(b)
	b = append(b, e.envelope...)
	b = append(b, `,"choices":[],"usage":`...)
	b = usageJSON(b, e.prompt, e.g.target)
	b = append(b, '}')
	return e.end(b)
}

// done appends the end marker: "data: [DONE]" for SSE OpenAI streams, an
// empty line for LMI JSON lines, nothing for TGI's generate stream.
func (e *encoder) done(b []byte) []byte {
	switch {
	case e.framing == framingJSONL && e.openAIStyle():
		return append(b, '\n')
	case e.framing == framingJSONL, !e.openAIStyle():
		return b
	}
	b = e.begin(b)
	b = append(b, "[DONE]"...)
	return e.end(b)
}

// malformed appends an event whose JSON is cut short mid-string.
func (e *encoder) malformed(b []byte) []byte {
	b = e.begin(b)
	if e.openAIStyle() {
		b = append(b, e.envelope...)
		b = append(b, `,"choices":[{"index":0,"text":" trunc`...)
	} else {
		b = append(b, `{"token":{"id":7,"text":" trunc`...)
	}
	return e.end(b)
}

// errorEvent appends an in-stream error: vLLM's {"error": {...}} object
// for OpenAI streams, TGI's {"error", "error_type"} for generate streams.
func (e *encoder) errorEvent(b []byte) []byte {
	b = e.begin(b)
	if e.openAIStyle() {
		b = append(b, `{"error":{"message":"Internal server error (injected fault)","type":"InternalServerError","param":null,"code":500}}`...)
	} else {
		b = append(b, `{"error":"Internal server error (injected fault)","error_type":"generation"}`...)
	}
	return e.end(b)
}

// ping appends an SSE comment line (SSE framings only).
func (e *encoder) ping(b []byte) []byte {
	if e.framing == framingJSONL {
		return b
	}
	b = append(b, ": ping"...)
	if e.crlf {
		return append(b, "\r\n\r\n"...)
	}
	return append(b, "\n\n"...)
}

// contentType is the container's Content-Type for the stream.
func (e *encoder) contentType() string {
	if e.framing == framingJSONL {
		return "application/jsonlines"
	}
	return "text/event-stream; charset=utf-8"
}

// wholeBody is the non-streamed response body.
func (e *encoder) wholeBody() []byte {
	text := e.g.fullText()
	var b []byte
	switch {
	case e.kind == KindGenerate && e.format == FormatTGI:
		b = append(b, `[{"generated_text":`...)
		b = appendJSONString(b, text)
		if e.details {
			b = e.appendDetails(b, true)
		}
		return append(b, "}]"...)
	case e.kind == KindGenerate:
		b = append(b, `{"generated_text":`...)
		b = appendJSONString(b, text)
		if e.details {
			b = e.appendDetails(b, false)
		}
		return append(b, '}')
	}
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.id)
	if e.kind == KindChat {
		b = append(b, `,"object":"chat.completion","created":`...)
	} else {
		b = append(b, `,"object":"text_completion","created":`...)
	}
	b = strconv.AppendInt(b, e.created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, e.model)
	if e.kind == KindChat {
		b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
		b = appendJSONString(b, text)
		b = append(b, `,"tool_calls":[]},"logprobs":null,"finish_reason":"`...)
	} else {
		b = append(b, `,"choices":[{"index":0,"text":`...)
		b = appendJSONString(b, text)
		b = append(b, `,"logprobs":null,"finish_reason":"`...)
	}
	b = append(b, e.finish...)
	b = append(b, `","stop_reason":null}],"usage":`...)
	b = wholeUsageJSON(b, e.prompt, e.g.target)
	return append(b, '}')
}

func (e *encoder) appendDetails(b []byte, tgi bool) []byte {
	b = append(b, `,"details":{"finish_reason":"`...)
	b = append(b, e.finish...)
	b = append(b, `","generated_tokens":`...)
	b = strconv.AppendInt(b, int64(e.g.target), 10)
	if tgi {
		b = append(b, `,"seed":null,"input_length":`...)
		b = strconv.AppendInt(b, int64(e.prompt), 10)
	} else {
		b = append(b, `,"inputs":`...)
		b = appendJSONString(b, e.inputs)
	}
	return append(b, '}')
}
