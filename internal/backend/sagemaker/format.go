package sagemaker

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/llmbench/llmbench/internal/backend"
)

// Format is a payload format: the request body the container expects and
// the stream it sends back. SageMaker passes both through unchanged.
type Format string

// The payload formats.
const (
	// FormatOpenAIChat is OpenAI chat completions, as the vLLM container
	// serves them behind /invocations: vLLM bench's openai-chat body, an SSE
	// (or, behind LMI, JSON-lines) stream of chat.completion.chunk ending
	// with [DONE]. The default.
	FormatOpenAIChat Format = "openai-chat"
	// FormatOpenAI is OpenAI completions: vLLM bench's openai body,
	// text_completion chunks.
	FormatOpenAI Format = "openai"
	// FormatTGI is Hugging Face TGI's generate_stream: body
	// {"inputs", "parameters", "stream"}, SSE "data:{token...}" events, the
	// last one with generated_text and details.
	FormatTGI Format = "tgi"
	// FormatLMI is DJL-Serving/LMI's native schema: the same body as TGI,
	// a JSON-lines stream of {"token": ...} lines, the last one with
	// generated_text and details.
	FormatLMI Format = "lmi"
)

// Formats lists the accepted payload formats, default first.
var Formats = []Format{FormatOpenAIChat, FormatOpenAI, FormatTGI, FormatLMI}

// ParseFormat checks a --payload-format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown payload format %q (want openai-chat, openai, tgi or lmi)", s)
}

// openAI reports whether f streams OpenAI chunks.
func (f Format) openAI() bool { return f == FormatOpenAIChat || f == FormatOpenAI }

// tokenBody builds the TGI/LMI request body. The sampling keys of
// ExtraBody go into "parameters", where those servers read them;
// "details": true makes the final line carry finish_reason and
// generated_tokens. IgnoreEOS becomes parameters.ignore_eos for LMI (a vLLM
// sampling parameter it passes on); TGI has no such parameter, so it is
// left out there. (The OpenAI formats' bodies come from the OpenAI backend,
// see Backend.body.)
func (f Format) tokenBody(req *backend.Request) ([]byte, error) {
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
