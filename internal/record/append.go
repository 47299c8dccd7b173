package record

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends r as a json.Encoder with SetEscapeHTML(false)
// writes it, newline included, without reflection or allocation: a run
// that saves its records writes one per request while its streams are in
// flight, and encoding/json took 1.5 % of such a run's CPU at 1,000
// streams. The floats' shortest digits are most of the work either way:
// 7.9 -> 5.6 µs for a 100-token record (go test -bench RecordLine
// ./internal/record). FuzzAppendJSON compares the two byte for byte. A record encoding/json would refuse (a NaN or infinite time) is
// handed to it, for its error.
func appendJSON(b []byte, r *Record, enc func(*Record) ([]byte, error)) ([]byte, error) {
	if !finite(r) {
		out, err := enc(r)
		return append(b, out...), err
	}
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	b = append(b, `,"success":`...)
	b = strconv.AppendBool(b, r.Success)
	b = append(b, `,"prompt_len":`...)
	b = strconv.AppendInt(b, int64(r.PromptLen), 10)
	b = append(b, `,"output_tokens":`...)
	if r.OutputTokens == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.OutputTokens), 10)
	}
	b = append(b, `,"expected_output_len":`...)
	b = strconv.AppendInt(b, int64(r.ExpectedOutputLen), 10)
	b = append(b, `,"ttft":`...)
	b = appendFloat(b, r.TTFT)
	b = append(b, `,"itl":`...)
	if r.ITL == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, v := range r.ITL {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat(b, v)
		}
		b = append(b, ']')
	}
	b = append(b, `,"latency":`...)
	b = appendFloat(b, r.Latency)
	b = append(b, `,"start_time":`...)
	b = appendFloat(b, r.StartTime)
	b = append(b, `,"generated_text":`...)
	b = appendString(b, r.GeneratedText)
	b = append(b, `,"error":`...)
	b = appendString(b, r.Error)
	b = appendOmitted(b, r)
	return append(b, "}\n"...), nil
}

// appendOmitted appends the omitempty members that are set.
func appendOmitted(b []byte, r *Record) []byte {
	if r.StartUnixNano != 0 {
		b = strconv.AppendInt(append(b, `,"start_unix_ns":`...), r.StartUnixNano, 10)
	}
	if r.IntendedTime != nil {
		b = appendFloat(append(b, `,"intended_time":`...), *r.IntendedTime)
	}
	if r.QueueTime != 0 {
		b = appendFloat(append(b, `,"queue_time":`...), r.QueueTime)
	}
	if r.OutputTokensSource != "" {
		b = appendString(append(b, `,"output_tokens_source":`...), r.OutputTokensSource)
	}
	if r.FinishReason != "" {
		b = appendString(append(b, `,"finish_reason":`...), r.FinishReason)
	}
	if r.UsageSeen {
		b = append(b, `,"usage_seen":true`...)
	}
	if r.ErrorClass != "" {
		b = appendString(append(b, `,"error_class":`...), r.ErrorClass)
	}
	for _, m := range [...]struct {
		key string
		v   int
	}{{`,"http_status":`, r.HTTPStatus}, {`,"user":`, r.User}} {
		if m.v != 0 {
			b = strconv.AppendInt(append(b, m.key...), int64(m.v), 10)
		}
	}
	if r.ThinkTime != 0 {
		b = appendFloat(append(b, `,"think_time":`...), r.ThinkTime)
	}
	for _, m := range [...]struct {
		key string
		v   int
	}{{`,"conversation":`, r.Conversation}, {`,"turn":`, r.Turn}, {`,"worker":`, r.Worker}, {`,"tokenizer_count":`, r.TokenizerCount}} {
		if m.v != 0 {
			b = strconv.AppendInt(append(b, m.key...), int64(m.v), 10)
		}
	}
	return b
}

// finite reports whether every float of r is finite (encoding/json
// refuses the others).
func finite(r *Record) bool {
	ok := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	for _, v := range r.ITL {
		if !ok(v) {
			return false
		}
	}
	return ok(r.TTFT) && ok(r.Latency) && ok(r.StartTime) && ok(r.QueueTime) && ok(r.ThinkTime) &&
		(r.IntendedTime == nil || ok(*r.IntendedTime))
}

// appendFloat is encoding/json's float64 format: the shortest digits,
// 'f' form unless the magnitude is below 1e-6 or at least 1e21, and an
// exponent without a leading zero.
func appendFloat(b []byte, f float64) []byte {
	abs, format := math.Abs(f), byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString writes s quoted; a string with anything to escape goes
// through encoding/json (without HTML escaping, as the Stream's encoder).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// encodeStd is encoding/json's line for r, as the Stream's encoder writes
// it.
func encodeStd(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(r)
	return buf.Bytes(), err
}
