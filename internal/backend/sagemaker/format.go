package sagemaker

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/backend/stream"
	"github.com/llmbench/llmbench/internal/record"
)

// Format is a payload format: the request body the container expects and
// the stream it sends back. SageMaker passes both through unchanged; the
// stream is decoded by package stream, as the OpenAI backend's is.
type Format = stream.Format

// The payload formats.
const (
	// FormatOpenAIChat is OpenAI chat completions, as the vLLM container
	// serves them behind /invocations: vLLM bench's openai-chat body, an SSE
	// (or, behind LMI, JSON-lines) stream of chat.completion.chunk ending
	// with [DONE]. The default.
	FormatOpenAIChat = stream.FormatChat
	// FormatOpenAI is OpenAI completions: vLLM bench's openai body,
	// text_completion chunks.
	FormatOpenAI = stream.FormatCompletions
	// FormatTGI is Hugging Face TGI's generate_stream: body
	// {"inputs", "parameters", "stream"}, SSE "data:{token...}" events, the
	// last one with generated_text and details.
	FormatTGI = stream.FormatTGI
	// FormatLMI is DJL-Serving/LMI's native schema: the same body as TGI,
	// a JSON-lines stream of {"token": ...} lines, the last one with
	// generated_text and details.
	FormatLMI = stream.FormatLMI
)

// Formats lists the accepted payload formats, default first.
var Formats = stream.Formats

// ParseFormat checks a --payload-format value.
func ParseFormat(s string) (Format, error) { return stream.ParseFormat(s) }

// tokenBody builds the TGI/LMI request body. The sampling keys of
// ExtraBody go into "parameters", where those servers read them;
// "details": true makes the final line carry finish_reason and
// generated_tokens. IgnoreEOS becomes parameters.ignore_eos for LMI (a vLLM
// sampling parameter it passes on); TGI has no such parameter, so it is
// left out there. (The OpenAI formats' bodies come from the OpenAI backend,
// see Backend.body.)
func tokenBody(f Format, req *backend.Request) ([]byte, error) {
	if f != FormatTGI && f != FormatLMI {
		return nil, fmt.Errorf("payload format %q has no token body", string(f))
	}
	params := map[string]any{
		"max_new_tokens": req.MaxTokens,
		"details":        true,
	}
	if req.IgnoreEOS && f == FormatLMI {
		params["ignore_eos"] = true
	}
	maps.Copy(params, req.ExtraBody)
	b, err := json.Marshal(map[string]any{
		"inputs":     req.Prompt,
		"parameters": params,
		"stream":     true,
	})
	if err != nil {
		return nil, fmt.Errorf("encoding the request body: %w", err)
	}
	return checkSize(b)
}

// checkSize enforces SageMaker's request body limit.
func checkSize(b []byte) ([]byte, error) {
	if len(b) > maxBodyBytes {
		return nil, fmt.Errorf("request body is %d bytes, over SageMaker's limit of %d", len(b), maxBodyBytes)
	}
	return b, nil
}

// maxBodyBytes is SageMaker's request body limit (6 MiB).
const maxBodyBytes = 6 << 20

// body builds the request body: for the OpenAI formats the OpenAI
// backend's own bytes (openai.BuildBody: vLLM bench's keys, order and
// number format), so both backends ask the server for the same work;
// tokenBody for TGI and LMI.
func (b *Backend) body(req *backend.Request) ([]byte, error) {
	api := openai.Completions
	switch b.format {
	case FormatOpenAIChat:
		api = openai.Chat
	case FormatOpenAI:
	default:
		return tokenBody(b.format, req)
	}
	body, err := openai.BuildBody(api, nil, req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request body: %w", err)
	}
	return checkSize(body)
}

// newReceiver returns the format's stream decoder (package stream, the
// OpenAI backend's own for the OpenAI formats), so both backends apply
// identical rules.
func (b *Backend) newReceiver(req *backend.Request, resp *backend.Response) stream.Receiver {
	o := stream.Options{MaxTokens: req.MaxTokens, Meter: stream.Meter{Max: b.cfg.MaxResponseBytes, Budget: b.budget}}
	if !asksUsage(req) {
		// Without a usage chunk to wait for, a JSON-lines stream (LMI)
		// ends at the finish chunk; the SSE parser accepts JSON lines too.
		o.Framing = stream.FramingJSONLines
	}
	return stream.New(b.format, resp, o)
}

// finish ends a stream the SDK closed cleanly. With include_usage asked
// for, the end of an OpenAI stream is "[DONE]" or the usage chunk; a
// finish_reason alone is not enough (docs/sagemaker.md#end-markers), and
// the message says how to tell the server that none is expected.
func (b *Backend) finish(rcv stream.Receiver, resp *backend.Response, now time.Time) {
	if rcv.Finish(now) != nil && b.format.OpenAI() && resp.ErrClass == record.ErrStreamTruncated && resp.FinishReason != "" {
		// Cut after the finish chunk, or a server that never sends usage
		// (older LMI chat).
		resp.Err = fmt.Errorf("%w (the finish chunk arrived but not the usage chunk the request asked for; "+
			"for a server that never sends usage, pass --extra-body '{\"stream_options\":{\"include_usage\":false}}')", resp.Err)
	}
}

// asksUsage reports whether the request body asks for the usage chunk:
// always, unless --extra-body overrode stream_options.
func asksUsage(req *backend.Request) bool {
	v, ok := req.ExtraBody["stream_options"]
	if !ok {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	iu, _ := m["include_usage"].(bool)
	return iu
}
