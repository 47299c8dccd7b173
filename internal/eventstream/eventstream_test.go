package eventstream

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	awses "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// decodeAll decodes every message in b with the AWS SDK's decoder.
func decodeAll(t *testing.T, b []byte) []awses.Message {
	t.Helper()
	dec := awses.NewDecoder()
	r := bytes.NewReader(b)
	var out []awses.Message
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatalf("decode after %d messages: %v", len(out), err)
		}
		out = append(out, m.Clone())
	}
	return out
}

func header(m awses.Message, name string) string {
	if v := m.Headers.Get(name); v != nil {
		return v.String()
	}
	return ""
}

// TestWorkedExample reproduces docs/sagemaker.md#event-stream-framing: a PayloadPart carrying "data: {"
// is 112 bytes with the given prelude and message CRCs.
func TestWorkedExample(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, PartSize{N: 7}, 0)
	if _, err := w.Write([]byte("data: {")); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if len(b) != 112 {
		t.Fatalf("%d bytes, want 112", len(b))
	}
	if got := hex.EncodeToString(b[:12]); got != "00000070000000598e47d6f6" {
		t.Errorf("prelude %s", got)
	}
	if got := hex.EncodeToString(b[108:]); got != "8473b9e2" {
		t.Errorf("message CRC %s", got)
	}
}

// TestSplitting checks part boundaries for each size: parts reassemble to
// the input, fixed sizes follow the grid across writes, and nothing is
// held back at the end of a write.
func TestSplitting(t *testing.T) {
	t.Parallel()
	writes := [][]byte{
		[]byte("data: {\"text\":\" 世界 🚀\"}\n\n"),
		[]byte("data: {\"text\":\" café\"}\n\n"),
		[]byte("data: [DONE]\n\n"),
	}
	var all []byte
	for _, w := range writes {
		all = append(all, w...)
	}
	tests := []struct {
		name  string
		size  PartSize
		check func(t *testing.T, parts [][]byte, perWrite []int)
	}{
		{"1 byte", PartSize{N: 1}, func(t *testing.T, parts [][]byte, _ []int) {
			if len(parts) != len(all) {
				t.Errorf("%d parts for %d bytes", len(parts), len(all))
			}
		}},
		{"7 bytes on a grid across writes", PartSize{N: 7}, func(t *testing.T, parts [][]byte, perWrite []int) {
			off := 0
			for i, p := range parts {
				if len(p) == 0 || len(p) > 7 {
					t.Errorf("part %d has %d bytes", i, len(p))
				}
				// A part never crosses a multiple of 7 in the stream.
				if off/7 != (off+len(p)-1)/7 {
					t.Errorf("part %d [%d,%d) crosses the 7-byte grid", i, off, off+len(p))
				}
				off += len(p)
			}
			if perWrite[0] != (len(writes[0])+6)/7 {
				t.Errorf("first write gave %d parts", perWrite[0])
			}
		}},
		{"4096: one part per write", PartSize{N: 4096}, func(t *testing.T, parts [][]byte, _ []int) {
			if len(parts) != len(writes) {
				t.Errorf("%d parts for %d writes", len(parts), len(writes))
			}
		}},
		{"random: 1..16 bytes with some empty parts", PartSize{Random: true}, func(t *testing.T, parts [][]byte, _ []int) {
			for i, p := range parts {
				if len(p) > 16 {
					t.Errorf("part %d has %d bytes", i, len(p))
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			w := NewWriter(&buf, tc.size, 42)
			var perWrite []int
			for _, p := range writes {
				before := w.Frames()
				if n, err := w.Write(p); err != nil || n != len(p) {
					t.Fatalf("write: %d, %v", n, err)
				}
				perWrite = append(perWrite, w.Frames()-before)
			}
			var parts [][]byte
			var got []byte
			for _, m := range decodeAll(t, buf.Bytes()) {
				if header(m, ":event-type") != "PayloadPart" || header(m, ":message-type") != "event" ||
					header(m, ":content-type") != "application/octet-stream" {
					t.Fatalf("headers %v", m.Headers)
				}
				parts = append(parts, m.Payload)
				got = append(got, m.Payload...)
			}
			if !bytes.Equal(got, all) {
				t.Fatalf("reassembled %q", got)
			}
			tc.check(t, parts, perWrite)
		})
	}
}

// TestRandomIsSeeded: the same seed gives the same boundaries.
func TestRandomIsSeeded(t *testing.T) {
	t.Parallel()
	frames := func(seed uint64) []byte {
		var buf bytes.Buffer
		w := NewWriter(&buf, PartSize{Random: true}, seed)
		_, _ = w.Write(bytes.Repeat([]byte("abcdefgh"), 64))
		return buf.Bytes()
	}
	if !bytes.Equal(frames(1), frames(1)) {
		t.Error("same seed, different frames")
	}
	if bytes.Equal(frames(1), frames(2)) {
		t.Error("different seeds, same frames")
	}
}

func TestExceptionAndErrorFrames(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, PartSize{}, 0)
	if err := w.WriteException(ModelStreamError, CodeStreamBroken, "broken"); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteException(InternalStreamFailure, "", "oops"); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteError("SomeCode", "some message"); err != nil {
		t.Fatal(err)
	}
	ms := decodeAll(t, buf.Bytes())
	if len(ms) != 3 {
		t.Fatalf("%d messages", len(ms))
	}
	var p map[string]string
	if err := json.Unmarshal(ms[0].Payload, &p); err != nil || p["ErrorCode"] != "StreamBroken" || p["Message"] != "broken" ||
		header(ms[0], ":exception-type") != "ModelStreamError" || header(ms[0], ":message-type") != "exception" {
		t.Errorf("ModelStreamError frame: %v %s", ms[0].Headers, ms[0].Payload)
	}
	p = nil // a fresh map: the first frame's keys must not carry over
	if err := json.Unmarshal(ms[1].Payload, &p); err != nil || p["Message"] != "oops" || header(ms[1], ":exception-type") != "InternalStreamFailure" {
		t.Errorf("InternalStreamFailure frame: %v %s", ms[1].Headers, ms[1].Payload)
	}
	if bytes.Contains(ms[1].Payload, []byte("ErrorCode")) {
		t.Errorf("InternalStreamFailure carries an ErrorCode: %s", ms[1].Payload)
	}
	if header(ms[2], ":message-type") != "error" || header(ms[2], ":error-code") != "SomeCode" ||
		header(ms[2], ":error-message") != "some message" || len(ms[2].Payload) != 0 {
		t.Errorf("error frame: %v", ms[2].Headers)
	}
}

func TestParsePartSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]PartSize{"1": {N: 1}, " 7 ": {N: 7}, "4096": {N: 4096}, "random": {Random: true}, "RANDOM": {Random: true}} {
		got, err := ParsePartSize(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", in, got, err)
		}
	}
	for _, bad := range []string{"0", "-3", "x", "", "1.5"} {
		if _, err := ParsePartSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestEndpointNameError(t *testing.T) {
	t.Parallel()
	long := "a" + strings.Repeat("-", 70) + "b" // fits the pattern, not the length
	for _, tc := range []struct {
		name string
		want string // "" = valid
	}{
		{"ep", ""},
		{"my-endpoint-1", ""},
		{"a--b", ""},
		{strings.Repeat("x", 63), ""},
		{strings.Repeat("x", 64), "length less than or equal to 63"},
		{long, "length less than or equal to 63"},
		{"", "regular expression"},
		{"bad_name", "regular expression"},
		{"-ep", "regular expression"},
		{"ep-", "regular expression"},
	} {
		e, bad := EndpointNameError(tc.name)
		if bad != (tc.want != "") || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%q: bad %v, %+v; want %q", tc.name, bad, e, tc.want)
		}
		if bad && (e.Status != 400 || e.Code != "ValidationError") {
			t.Errorf("%q: %+v, want a 400 ValidationError", tc.name, e)
		}
	}
}

// TestAPIErrorWire checks status, X-Amzn-ErrorType and body of each
// pre-stream error (the AWS SDK test in internal/sim checks how the SDK
// classifies them).
func TestAPIErrorWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e      APIError
		status int
		code   string
		field  string
	}{
		{Throttling(""), 400, "ThrottlingException", "message"},
		{ModelNotReady(""), 429, "ModelNotReadyException", "Message"},
		{ModelError("ep", 500, "boom"), 424, "ModelError", "Message"},
		{ValidationError("bad"), 400, "ValidationError", "message"},
	}
	for _, tc := range tests {
		rec := httptest.NewRecorder()
		tc.e.Write(rec)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if rec.Code != tc.status || rec.Header().Get("X-Amzn-ErrorType") != tc.code || body[tc.field] == nil || body["__type"] != tc.code {
			t.Errorf("%s: status %d header %q body %v", tc.code, rec.Code, rec.Header().Get("X-Amzn-ErrorType"), body)
		}
	}
	rec := httptest.NewRecorder()
	ModelError("ep", 503, "down").Write(rec)
	var body map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if body["OriginalStatusCode"] != 503.0 || body["OriginalMessage"] != "down" {
		t.Errorf("ModelError body %v", body)
	}
}

// TestWriterFlushesEachWrite: every Write reaches the client at once.
func TestWriterFlushesEachWrite(t *testing.T) {
	t.Parallel()
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		StartStream(w, "text/event-stream", "req-1")
		ew := NewWriter(w, PartSize{N: 7}, 0)
		_, _ = ew.Write([]byte("data: 1\n\n"))
		<-next
		_, _ = ew.Write([]byte("data: 2\n\n"))
	}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != ContentType || resp.Header.Get("X-Amzn-SageMaker-Content-Type") != "text/event-stream" {
		t.Errorf("headers %v", resp.Header)
	}
	dec := awses.NewDecoder()
	var got []byte
	for len(got) < len("data: 1\n\n") {
		m, err := dec.Decode(resp.Body, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Payload...)
	}
	close(next)
	rest, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	for _, m := range decodeAll(t, rest) {
		got = append(got, m.Payload...)
	}
	if string(got) != "data: 1\n\ndata: 2\n\n" {
		t.Errorf("got %q", got)
	}
}

// TestBoundariesLandWhereParsersBreak: with 7-byte parts over a realistic
// SSE stream, some part ends inside a multi-byte UTF-8 character, some
// between the two "\n" of an event terminator, and some inside "data:"
// (docs/sagemaker.md#payloadpart-reassembly), so a client that parses parts on their own fails.
func TestBoundariesLandWhereParsersBreak(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, PartSize{N: 7}, 0)
	words := []string{" 世界", " café", " 🚀", " the", " 東京", " naïve", " river", " Ω"}
	for i := range 40 {
		if _, err := w.Write([]byte(`data: {"choices":[{"text":"` + words[i%len(words)] + `"}]}` + "\n\n")); err != nil {
			t.Fatal(err)
		}
	}
	var inRune, inTerminator, inPrefix bool
	for _, m := range decodeAll(t, buf.Bytes()) {
		p := m.Payload
		if len(p) == 0 {
			continue
		}
		// A part that starts with a UTF-8 continuation byte means the
		// previous one ended inside a character.
		if !utf8.RuneStart(p[0]) {
			inRune = true
		}
		if bytes.HasSuffix(p, []byte("}\n")) {
			inTerminator = true
		}
		if bytes.HasSuffix(p, []byte("da")) || bytes.HasSuffix(p, []byte("dat")) || bytes.HasSuffix(p, []byte("data")) {
			inPrefix = true
		}
	}
	if !inRune || !inTerminator || !inPrefix {
		t.Errorf("boundaries inside a rune %v, between the terminator's \\n %v, inside data: %v", inRune, inTerminator, inPrefix)
	}
}
