package stream

import "bytes"

// Framing says how JSON messages are delimited in the byte stream. Every
// payload format reads its lines through cutFrame, the one place SSE
// framing is parsed.
type Framing uint8

const (
	// FramingSSE (the zero value) is Server-Sent Events as vLLM's OpenAI
	// server writes them: "data: {...}" lines separated by blank lines.
	FramingSSE Framing = iota
	// FramingJSONLines is one JSON message per line without a "data:"
	// prefix (SageMaker LMI's application/jsonlines).
	FramingJSONLines
	// FramingAny detects the framing per line, as TGI's and LMI's token
	// streams need (docs/sagemaker.md#payload-formats): the line is
	// trimmed of surrounding white space first, an SSE field name counts
	// only with its colon, and what is neither SSE nor blank is a JSON
	// line.
	FramingAny
)

// frame is what one line of a stream holds.
type frame uint8

const (
	// frameSkip is a line with no message: blank, a ":" comment or
	// keep-alive, an event:, id: or retry: field, an empty data field.
	frameSkip frame = iota
	// frameMessage is a line holding one JSON message (the payload).
	frameMessage
	// frameDone is the "[DONE]" end marker.
	frameDone
	// frameBad is a line that is none of these under FramingSSE.
	frameBad
)

var (
	prefixData      = []byte("data:")
	prefixDataSpace = []byte("data: ")
	tokenDone       = []byte("[DONE]")
)

// cutFrame reads the framing of one complete line (without its line
// end) and returns what it holds, with the payload of a message. The rules
// are Parser's (see its doc comment); FramingAny adds its own above.
func cutFrame(line []byte, f Framing) (frame, []byte) {
	if f == FramingAny {
		line = bytes.TrimSpace(line)
	}
	if len(line) == 0 {
		return frameSkip, nil
	}
	payload := line
	switch {
	case bytes.HasPrefix(line, prefixData):
		payload = line[len(prefixData):]
	case line[0] == ':':
		return frameSkip, nil // comment / keep-alive
	case line[0] == '{':
		// a bare JSON message
	default:
		if sseField(line, f) {
			return frameSkip, nil // no JSON line starts like this, whatever the framing
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return frameSkip, nil
		}
		if f == FramingSSE {
			return frameBad, nil
		}
	}
	return dataFrame(payload)
}

// dataFrame reads the value of a data field (or a JSON line): white space
// around it is not part of the message, an empty one is no message, and
// "[DONE]" ends the stream.
func dataFrame(payload []byte) (frame, []byte) {
	payload = bytes.TrimSpace(payload)
	switch {
	case len(payload) == 0:
		return frameSkip, nil // "data:" with nothing: an empty SSE data field
	case bytes.Equal(payload, tokenDone):
		return frameDone, nil
	}
	return frameMessage, payload
}

// sseField reports whether line is an SSE field other than data: that
// carries nothing a benchmark reads (event:, id:, retry:); FramingAny
// wants the colon.
func sseField(line []byte, f Framing) bool {
	name := line
	i := bytes.IndexByte(line, ':')
	if i >= 0 {
		name = line[:i]
	} else if f == FramingAny {
		return false
	}
	switch string(name) {
	case "event", "id", "retry":
		return true
	}
	return false
}

// continuation reads a line that continues a JSON message held across
// lines (a pretty-printed or oddly split TGI/LMI message): blank reports a
// line of white space only, which continues nothing; otherwise white space
// and an optional "data:" prefix are not part of it (what is left may be
// empty). Nothing else is framing there: the held message decides.
func continuation(line []byte) (payload []byte, blank bool) {
	l := bytes.TrimSpace(line)
	if len(l) == 0 {
		return nil, true
	}
	if rest, ok := bytes.CutPrefix(l, prefixData); ok {
		l = bytes.TrimSpace(rest)
	}
	return l, false
}
