package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
)

// Kind is what a request asks for.
type Kind int

// Request kinds.
const (
	// KindCompletion is POST /v1/completions ("prompt").
	KindCompletion Kind = iota
	// KindChat is POST /v1/chat/completions ("messages").
	KindChat
	// KindGenerate is a TGI/LMI-style SageMaker body ("inputs",
	// "parameters").
	KindGenerate
)

// String names the kind as the truth log does.
func (k Kind) String() string {
	switch k {
	case KindCompletion:
		return "completions"
	case KindChat:
		return "chat"
	case KindGenerate:
		return "generate"
	}
	return "unknown"
}

// Message is one chat message; Content is its text (text parts joined).
type Message struct {
	Role    string
	Content string
}

// Request is a parsed generation request.
type Request struct {
	Kind  Kind
	Model string
	// Prompt is the completion prompt or the TGI/LMI "inputs" text.
	Prompt string
	// PromptIDs holds a prompt given as token ids (completions only).
	PromptIDs []int
	// Messages holds a chat request's messages.
	Messages []Message
	// MaxTokens is max_tokens / max_completion_tokens /
	// parameters.max_new_tokens; 0 = not given.
	MaxTokens int
	IgnoreEOS bool
	Stream    bool
	// IncludeUsage is stream_options.include_usage.
	IncludeUsage bool
	// ContinuousUsage is stream_options.continuous_usage_stats.
	ContinuousUsage bool
	// Details is TGI/LMI parameters.details.
	Details bool
}

// apiError is an OpenAI/vLLM-style error answer.
type apiError struct {
	Status  int
	Type    string
	Message string
}

func (e *apiError) Error() string { return e.Message }

func badRequest(format string, a ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "BadRequestError", Message: fmt.Sprintf(format, a...)}
}

// body writes vLLM's error JSON: {"error": {"message", "type", "param", "code"}}.
func (e *apiError) body() []byte {
	type inner struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    int     `json:"code"`
	}
	b, _ := json.Marshal(struct {
		Error inner `json:"error"`
	}{inner{Message: e.Message, Type: e.Type, Code: e.Status}})
	return b
}

// maxBodyBytes bounds a request body (SageMaker's limit is 6 MiB).
const maxBodyBytes = 6 << 20

// ParseRequest parses a request body for kind (KindCompletion or KindChat),
// applying vLLM's validation. Unknown keys are ignored, as vLLM does. It
// never panics on any input.
func ParseRequest(kind Kind, body []byte) (*Request, error) {
	r, err := parseRequest(kind, body)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ParseInvocation parses a SageMaker /invocations body the way the
// containers dispatch it: "messages" => chat, "prompt" => completions,
// "inputs" => TGI/LMI generate.
func ParseInvocation(body []byte) (*Request, error) {
	r, err := parseInvocation(body)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func parseInvocation(body []byte) (*Request, *apiError) {
	var probe map[string]json.RawMessage
	if err := decodeObject(body, &probe); err != nil {
		return nil, err
	}
	switch {
	case probe["messages"] != nil:
		return parseRequest(KindChat, body)
	case probe["prompt"] != nil:
		return parseRequest(KindCompletion, body)
	case probe["inputs"] != nil:
		return parseRequest(KindGenerate, body)
	}
	return nil, badRequest("request body has none of \"messages\", \"prompt\" or \"inputs\"")
}

func decodeObject(body []byte, into *map[string]json.RawMessage) *apiError {
	if len(body) > maxBodyBytes {
		return badRequest("request body is larger than %d bytes", maxBodyBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(into); err != nil {
		return badRequest("JSON decode error: %v", err)
	}
	// Not dec.More(): it reports false for a stray ']' or '}'.
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("JSON decode error: trailing data after the request object")
	}
	if *into == nil {
		return badRequest("request body must be a JSON object")
	}
	return nil
}

func parseRequest(kind Kind, body []byte) (*Request, *apiError) {
	var f map[string]json.RawMessage
	if err := decodeObject(body, &f); err != nil {
		return nil, err
	}
	r := &Request{Kind: kind}
	var err *apiError
	if r.Model, err = optString(f, "model"); err != nil {
		return nil, err
	}
	if r.Stream, err = optBool(f, "stream"); err != nil {
		return nil, err
	}
	if r.IgnoreEOS, err = optBool(f, "ignore_eos"); err != nil {
		return nil, err
	}
	n, err := optInt(f, "n")
	if err != nil {
		return nil, err
	}
	if _, given := f["n"]; given && !isNull(f["n"]) && n != 1 {
		return nil, badRequest("n = %d is not supported: the simulator generates one choice (n=1)", n)
	}
	if raw, ok := f["stream_options"]; ok && !isNull(raw) {
		if !r.Stream {
			return nil, badRequest("Stream options can only be defined when `stream=True`.")
		}
		var so map[string]json.RawMessage
		if e := json.Unmarshal(raw, &so); e != nil || so == nil {
			return nil, badRequest("stream_options: must be an object")
		}
		if r.IncludeUsage, err = optBool(so, "include_usage"); err != nil {
			return nil, err
		}
		if r.ContinuousUsage, err = optBool(so, "continuous_usage_stats"); err != nil {
			return nil, err
		}
	}
	switch kind {
	case KindCompletion:
		if err = parsePrompt(f, r); err != nil {
			return nil, err
		}
		if r.MaxTokens, err = optInt(f, "max_tokens"); err != nil {
			return nil, err
		}
		if err = checkMaxTokens("max_tokens", f, r.MaxTokens); err != nil {
			return nil, err
		}
	case KindChat:
		if r.Messages, err = parseMessages(f); err != nil {
			return nil, err
		}
		mt, err := optInt(f, "max_tokens")
		if err != nil {
			return nil, err
		}
		if err = checkMaxTokens("max_tokens", f, mt); err != nil {
			return nil, err
		}
		mct, err := optInt(f, "max_completion_tokens")
		if err != nil {
			return nil, err
		}
		if err = checkMaxTokens("max_completion_tokens", f, mct); err != nil {
			return nil, err
		}
		// vLLM: max_tokens = max_completion_tokens or max_tokens.
		r.MaxTokens = mct
		if r.MaxTokens == 0 {
			r.MaxTokens = mt
		}
	case KindGenerate:
		if r.Prompt, err = optString(f, "inputs"); err != nil {
			return nil, err
		}
		if raw, ok := f["parameters"]; ok && !isNull(raw) {
			var p map[string]json.RawMessage
			if e := json.Unmarshal(raw, &p); e != nil || p == nil {
				return nil, badRequest("parameters: must be an object")
			}
			if r.MaxTokens, err = optInt(p, "max_new_tokens"); err != nil {
				return nil, err
			}
			if err = checkMaxTokens("max_new_tokens", p, r.MaxTokens); err != nil {
				return nil, err
			}
			if r.Details, err = optBool(p, "details"); err != nil {
				return nil, err
			}
			ie, err := optBool(p, "ignore_eos")
			if err != nil {
				return nil, err
			}
			r.IgnoreEOS = r.IgnoreEOS || ie
		}
	}
	return r, nil
}

func checkMaxTokens(name string, f map[string]json.RawMessage, v int) *apiError {
	if raw, ok := f[name]; ok && !isNull(raw) && v < 1 {
		return badRequest("%s must be at least 1, got %d.", name, v)
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func optString(f map[string]json.RawMessage, key string) (string, *apiError) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badRequest("%s: Input should be a valid string", key)
	}
	return s, nil
}

func optBool(f map[string]json.RawMessage, key string) (bool, *apiError) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, badRequest("%s: Input should be a valid boolean", key)
	}
	return b, nil
}

// optInt accepts integers and integral floats (pydantic's lax mode).
func optInt(f map[string]json.RawMessage, key string) (int, *apiError) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return 0, nil
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil || v != math.Trunc(v) || math.Abs(v) > 1<<31 {
		return 0, badRequest("%s: Input should be a valid integer", key)
	}
	return int(v), nil
}

func parsePrompt(f map[string]json.RawMessage, r *Request) *apiError {
	raw, ok := f["prompt"]
	if !ok || isNull(raw) {
		return badRequest("prompt: Field required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		r.Prompt = s
		return nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		if len(ss) != 1 {
			return badRequest("prompt: a list of %d prompts is not supported: send one prompt per request", len(ss))
		}
		r.Prompt = ss[0]
		return nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		if len(ids) == 0 {
			return badRequest("prompt: token id list is empty")
		}
		r.PromptIDs = ids
		return nil
	}
	var idss [][]int
	if json.Unmarshal(raw, &idss) == nil && len(idss) == 1 && len(idss[0]) > 0 {
		r.PromptIDs = idss[0]
		return nil
	}
	return badRequest("prompt: Input should be a string, a list with one string, or a list of token ids")
}

func parseMessages(f map[string]json.RawMessage) ([]Message, *apiError) {
	raw, ok := f["messages"]
	if !ok || isNull(raw) {
		return nil, badRequest("messages: Field required")
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badRequest("messages: Input should be a valid list of message objects")
	}
	if len(list) == 0 {
		return nil, badRequest("messages: List should have at least 1 item")
	}
	out := make([]Message, 0, len(list))
	for i, m := range list {
		role, err := optString(m, "role")
		if err != nil || role == "" {
			return nil, badRequest("messages[%d].role: Field required (a string)", i)
		}
		msg := Message{Role: role}
		c := m["content"]
		if c != nil && !isNull(c) {
			var s string
			if json.Unmarshal(c, &s) == nil {
				msg.Content = s
			} else {
				var parts []map[string]json.RawMessage
				if json.Unmarshal(c, &parts) != nil {
					return nil, badRequest("messages[%d].content: Input should be a string or a list of content parts", i)
				}
				var texts []string
				for j, p := range parts {
					typ, err := optString(p, "type")
					if err != nil || typ == "" {
						return nil, badRequest("messages[%d].content[%d].type: Field required", i, j)
					}
					if typ != "text" {
						continue // images etc. take no text tokens here
					}
					t, err := optString(p, "text")
					if err != nil {
						return nil, badRequest("messages[%d].content[%d].text: Input should be a valid string", i, j)
					}
					texts = append(texts, t)
				}
				msg.Content = strings.Join(texts, "\n")
			}
		}
		out = append(out, msg)
	}
	return out, nil
}

// promptTokens counts the request's prompt tokens. Completions: the prompt
// with BOS (or the given ids). Chat: the rendered template
// "role\ncontent\n" per message plus "assistant\n" (the generation prompt),
// with BOS. TGI/LMI inputs: the text with BOS.
func (r *Request) promptTokens(tok Tokenizer) int {
	switch r.Kind {
	case KindChat:
		return countTokens(tok, renderChat(r.Messages), true)
	default:
		if r.PromptIDs != nil {
			return len(r.PromptIDs)
		}
		return countTokens(tok, r.Prompt, true)
	}
}

// promptText is the text the generated words are derived from.
func (r *Request) promptText() string {
	switch {
	case r.Kind == KindChat:
		var b strings.Builder
		for _, m := range r.Messages {
			b.WriteString(m.Role)
			b.WriteString(m.Content)
		}
		return b.String()
	case r.PromptIDs != nil:
		return fmt.Sprint(r.PromptIDs)
	}
	return r.Prompt
}

// renderChat is the simulator's chat template: "role\ncontent\n" per
// message, then "assistant\n" as the generation prompt.
func renderChat(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	b.WriteString("assistant\n")
	return b.String()
}
