package stream

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
)

// Format is a payload format: the stream a server sends back for one
// request, whatever carried its bytes. The names are SageMaker's
// --payload-format values (docs/sagemaker.md#payload-formats); the OpenAI
// backend speaks the first two.
type Format string

// The payload formats.
const (
	// FormatChat is OpenAI chat completions: an SSE (or, behind LMI,
	// JSON-lines) stream of chat.completion.chunk ending with [DONE] or
	// the usage chunk; the text is choices[0].delta.content.
	FormatChat Format = "openai-chat"
	// FormatCompletions is OpenAI completions: text_completion chunks,
	// the text in choices[0].text.
	FormatCompletions Format = "openai"
	// FormatTGI is Hugging Face TGI's generate_stream: SSE
	// "data:{token...}" events, the last one with generated_text and
	// details.
	FormatTGI Format = "tgi"
	// FormatLMI is DJL-Serving/LMI's native schema: a JSON-lines stream of
	// {"token": ...} lines, the last one with generated_text and details.
	FormatLMI Format = "lmi"
)

// Formats lists the payload formats, default first.
var Formats = []Format{FormatChat, FormatCompletions, FormatTGI, FormatLMI}

// ParseFormat checks a --payload-format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown payload format %q (want openai-chat, openai, tgi or lmi)", s)
}

// OpenAI reports whether f streams OpenAI chunks (the Collector's).
func (f Format) OpenAI() bool { return f == FormatChat || f == FormatCompletions }

// Receiver decodes the stream of one response into a backend.Response
// with its format's rules: Text, Chunks (each stamped with the time of the
// read that completed it), FinishReason, token counts, and the outcome in
// Err and ErrClass. Every transport drives one the same way: Feed for
// every read (an HTTP body read, a SageMaker PayloadPart) with the time
// it returned, then Finish at a clean end of stream or Fail on a transport
// error, then Release. A Receiver is not safe for concurrent use.
type Receiver interface {
	// Feed takes b, received at now. A non-nil error means the response
	// has failed and the failure is recorded: stop reading.
	Feed(b []byte, now time.Time) error
	// Finish is called once when the stream ended without a transport
	// error, at now; it applies the format's success rule (an end marker
	// is required) and returns Resp.Err.
	Finish(now time.Time) error
	// Fail records a transport failure of the given class (a record.Err*
	// constant or the transport's own), keeping what arrived before it,
	// unless a failure is recorded already.
	Fail(class string, err error)
	// Release returns what the response reserved from the shared Budget.
	Release()
}

var (
	_ Receiver = (*Collector)(nil)
	_ Receiver = (*tokenDecoder)(nil)
)

// Options sets up a Receiver.
type Options struct {
	// Framing is the OpenAI formats' framing; FramingJSONLines also lets a
	// finish_reason end the stream (a request that asked for no usage
	// chunk, docs/sagemaker.md#end-markers). TGI and LMI always read
	// FramingAny.
	Framing Framing
	// MaxTokens is the request's max_tokens, to size the chunk stamps and
	// text up front (Collector.Expect).
	MaxTokens int
	// Meter bounds what the response holds (Max, Budget).
	Meter Meter
}

// New returns the Receiver of format f writing into resp. The OpenAI
// formats get a Collector; a transport that pools Collectors may set one
// up itself instead, as the OpenAI backend does.
func New(f Format, resp *backend.Response, o Options) Receiver {
	if !f.OpenAI() {
		// This decoder appends each stamp to resp; the Collector sizes
		// its own (Expect) and hands them over.
		resp.Chunks.Grow(min(max(o.MaxTokens, 0)+2, 4096))
		d := &tokenDecoder{resp: resp, meter: o.Meter}
		d.lines.Meter = &d.meter
		return d
	}
	c := &Collector{}
	c.Start(resp, f, o)
	return c
}
