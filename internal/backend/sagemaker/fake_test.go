package sagemaker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// This file holds a loopback SageMaker Runtime fake built only from the
// wire format (the SDK's event-stream encoder), not from the client's
// types, plus generators for the container streams of each format.

const (
	testAKID   = "AKIDTESTFAKE0000"
	testSecret = "s3cr3t-should-never-appear"
)

// fakeSM is an httptest server speaking InvokeEndpointWithResponseStream.
// The endpoint name in the path picks the scenario.
type fakeSM struct {
	srv       *httptest.Server
	mu        sync.Mutex
	scenarios map[string]scenario
	attempts  map[string]int
	lastReq   map[string]*http.Request
	lastBody  map[string][]byte
	newConns  atomic.Int64
	// fast makes the fake answer before reading the request body, like a
	// front end that streams back at once; it widens the window of the
	// request-body race (docs/sagemaker.md#request-body-race). Bodies are then not recorded.
	fast bool
	done chan struct{} // closed at cleanup: stalled handlers return
}

// scenario writes one response.
type scenario func(w http.ResponseWriter, r *http.Request, body []byte, done <-chan struct{})

func newFakeSM(t testing.TB, tlsServer bool) *fakeSM {
	t.Helper()
	f := &fakeSM{
		scenarios: map[string]scenario{},
		attempts:  map[string]int{},
		lastReq:   map[string]*http.Request{},
		lastBody:  map[string][]byte{},
		done:      make(chan struct{}),
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.newConns.Add(1)
		}
	}
	if tlsServer {
		f.srv.StartTLS()
	} else {
		f.srv.Start()
	}
	t.Cleanup(func() {
		close(f.done)
		f.srv.CloseClientConnections()
		f.srv.Close()
	})
	return f
}

// on registers a scenario for an endpoint name.
func (f *fakeSM) on(name string, s scenario) {
	f.mu.Lock()
	f.scenarios[name] = s
	f.mu.Unlock()
}

func (f *fakeSM) attemptsFor(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[name]
}

func (f *fakeSM) request(name string) (*http.Request, []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastReq[name], f.lastBody[name]
}

func (f *fakeSM) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/endpoints/")
	name, op, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || r.Method != http.MethodPost || op != "invocations-response-stream" {
		writeAPIError(w, 404, "UnknownOperationException", "no such operation "+r.URL.Path)
		return
	}
	// Every request must be SigV4-signed for service "sagemaker".
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+testAKID+"/") || !strings.Contains(auth, "/sagemaker/aws4_request") {
		writeAPIError(w, 403, "InvalidSignatureException", "bad Authorization header")
		return
	}
	var body bytes.Buffer
	if !f.fast {
		if _, err := body.ReadFrom(r.Body); err != nil {
			return
		}
	}
	f.mu.Lock()
	f.attempts[name]++
	s := f.scenarios[name]
	f.lastReq[name] = r.Clone(context.Background())
	f.lastBody[name] = body.Bytes()
	f.mu.Unlock()
	if s == nil {
		writeAPIError(w, 400, "ValidationError", "Endpoint "+name+" not found.")
		return
	}
	s(w, r, body.Bytes(), f.done)
}

// writeAPIError answers like SageMaker's restJson1 front end before a stream.
func writeAPIError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if code != "" {
		w.Header().Set("X-Amzn-ErrorType", code)
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// frameWriter writes event-stream messages to one response, each flushed.
// One encoder per stream: the encoder is not safe for concurrent use
// (docs/sagemaker.md#event-stream-encoders-in-fakes).
type frameWriter struct {
	w   http.ResponseWriter
	enc *eventstream.Encoder
}

func startStream(w http.ResponseWriter) *frameWriter {
	h := w.Header()
	h.Set("Content-Type", "application/vnd.amazon.eventstream")
	h.Set("X-Amzn-SageMaker-Content-Type", "text/event-stream")
	h.Set("x-Amzn-Invoked-Production-Variant", "AllTraffic")
	w.WriteHeader(200)
	w.(http.Flusher).Flush()
	return &frameWriter{w: w, enc: eventstream.NewEncoder()}
}

func (fw *frameWriter) write(msg eventstream.Message) error {
	if err := fw.enc.Encode(fw.w, msg); err != nil {
		return err
	}
	fw.w.(http.Flusher).Flush()
	return nil
}

func (fw *frameWriter) part(b []byte) error {
	var m eventstream.Message
	m.Headers.Set(":event-type", eventstream.StringValue("PayloadPart"))
	m.Headers.Set(":content-type", eventstream.StringValue("application/octet-stream"))
	m.Headers.Set(":message-type", eventstream.StringValue("event"))
	m.Payload = b
	return fw.write(m)
}

func (fw *frameWriter) exception(name, code, msg string) error {
	var m eventstream.Message
	m.Headers.Set(":exception-type", eventstream.StringValue(name))
	m.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	m.Headers.Set(":message-type", eventstream.StringValue("exception"))
	p := map[string]string{"Message": msg}
	if code != "" {
		p["ErrorCode"] = code
	}
	m.Payload, _ = json.Marshal(p)
	return fw.write(m)
}

func (fw *frameWriter) errorFrame(code, msg string) error {
	var m eventstream.Message
	m.Headers.Set(":error-code", eventstream.StringValue(code))
	m.Headers.Set(":error-message", eventstream.StringValue(msg))
	m.Headers.Set(":message-type", eventstream.StringValue("error"))
	return fw.write(m)
}

func (fw *frameWriter) unknownEvent(eventType string, payload []byte) error {
	var m eventstream.Message
	m.Headers.Set(":event-type", eventstream.StringValue(eventType))
	m.Headers.Set(":content-type", eventstream.StringValue("application/octet-stream"))
	m.Headers.Set(":message-type", eventstream.StringValue("event"))
	m.Payload = payload
	return fw.write(m)
}

// encodePart returns the wire bytes of one PayloadPart message.
func encodePart(b []byte) []byte {
	var m eventstream.Message
	m.Headers.Set(":event-type", eventstream.StringValue("PayloadPart"))
	m.Headers.Set(":content-type", eventstream.StringValue("application/octet-stream"))
	m.Headers.Set(":message-type", eventstream.StringValue("event"))
	m.Payload = b
	var buf bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&buf, m); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// hijackClose closes the connection under the handler: a mid-stream
// disconnect. With reset, the close sends a TCP RST instead of a FIN.
func hijackClose(w http.ResponseWriter, reset bool) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

// streamParts is a scenario that sends the container stream split by split,
// with an optional gap between parts.
func streamParts(payload []byte, split splitter, gap time.Duration) scenario {
	return func(w http.ResponseWriter, r *http.Request, _ []byte, done <-chan struct{}) {
		fw := startStream(w)
		for _, p := range split(payload) {
			if gap > 0 {
				select {
				case <-time.After(gap):
				case <-r.Context().Done():
					return
				}
			}
			if fw.part(p) != nil {
				return
			}
		}
	}
}

// splitter cuts a container stream into PayloadPart payloads.
type splitter func([]byte) [][]byte

// fixedSplit cuts every n bytes.
func fixedSplit(n int) splitter {
	return func(b []byte) [][]byte {
		var out [][]byte
		for len(b) > 0 {
			k := min(n, len(b))
			out = append(out, b[:k])
			b = b[k:]
		}
		return out
	}
}

// randomSplit cuts at random sizes 1..maxPart, seeded.
func randomSplit(seed uint64, maxPart int) splitter {
	return func(b []byte) [][]byte {
		rng := rand.New(rand.NewPCG(seed, 0x5a6e))
		var out [][]byte
		for len(b) > 0 {
			k := min(1+rng.IntN(maxPart), len(b))
			out = append(out, b[:k])
			b = b[k:]
		}
		return out
	}
}

// splitAtEventEnd cuts between the two newlines of every "\n\n".
func splitAtEventEnd(b []byte) [][]byte {
	var out [][]byte
	for {
		i := bytes.Index(b, []byte("\n\n"))
		if i < 0 {
			if len(b) > 0 {
				out = append(out, b)
			}
			return out
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
		out = append(out, b[:1])
		b = b[1:]
	}
}

// splitInsideRunes cuts in the middle of every multi-byte UTF-8 character.
func splitInsideRunes(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i < len(b); i++ {
		if b[i] >= 0xC0 { // a lead byte: cut right after it
			out = append(out, b[start:i+1])
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}

// withEmpties interleaves an empty part before every part of s.
func withEmpties(s splitter) splitter {
	return func(b []byte) [][]byte {
		var out [][]byte
		for _, p := range s(b) {
			out = append(out, nil, p)
		}
		return append(out, nil)
	}
}

// streamSpec describes a generated container stream and what a correct
// client must extract from it.
type streamSpec struct {
	tokens       []string // content pieces, one per content chunk
	finish       string
	promptTokens int
	usage        bool // send the usage chunk (OpenAI formats)
	done         bool // send [DONE] (SSE OpenAI formats)
}

// testTokens has multi-byte characters (2, 3 and 4 bytes), JSON escapes
// and an empty piece.
var testTokens = []string{"Hello", ",", " wörld", " 世界", " 🚀", " \"quoted\"", "\n", "", " tab\there", " end."}

// vllmChatSSE renders a vLLM chat stream: a role chunk, one chunk per
// token, a finish chunk, the usage chunk, [DONE].
func vllmChatSSE(s streamSpec) []byte {
	var b bytes.Buffer
	chunk := func(delta map[string]any, finish any) {
		m := map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish, "stop_reason": nil}},
		}
		j, _ := json.Marshal(m)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, tok := range s.tokens {
		chunk(map[string]any{"content": tok}, nil)
	}
	chunk(map[string]any{"content": ""}, s.finish)
	if s.usage {
		j, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": s.promptTokens, "completion_tokens": len(s.tokens), "total_tokens": s.promptTokens + len(s.tokens)},
		})
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	if s.done {
		b.WriteString("data: [DONE]\n\n")
	}
	return b.Bytes()
}

// vllmCompletionsSSE renders a vLLM completions stream.
func vllmCompletionsSSE(s streamSpec) []byte {
	var b bytes.Buffer
	for i, tok := range s.tokens {
		var finish any
		if i == len(s.tokens)-1 {
			finish = s.finish
		}
		j, _ := json.Marshal(map[string]any{
			"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "text": tok, "logprobs": nil, "finish_reason": finish, "stop_reason": nil}},
		})
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	if s.usage {
		j, _ := json.Marshal(map[string]any{
			"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": s.promptTokens, "completion_tokens": len(s.tokens), "total_tokens": s.promptTokens + len(s.tokens)},
		})
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	if s.done {
		b.WriteString("data: [DONE]\n\n")
	}
	return b.Bytes()
}

// lmiChatJSONLines renders LMI's re-emission of a vLLM chat stream: the
// same chunks as JSON lines, [DONE] replaced by an empty line.
func lmiChatJSONLines(s streamSpec) []byte {
	sse := vllmChatSSE(streamSpec{tokens: s.tokens, finish: s.finish, promptTokens: s.promptTokens, usage: s.usage})
	var b bytes.Buffer
	for _, ev := range bytes.Split(sse, []byte("\n\n")) {
		if p, ok := bytes.CutPrefix(ev, []byte("data: ")); ok {
			b.Write(p)
			b.WriteByte('\n')
		}
	}
	if s.done {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// tgiSSE renders TGI's generate_stream: "data:" without a space, the last
// token event with generated_text and details.
func tgiSSE(s streamSpec) []byte {
	var b bytes.Buffer
	for i, tok := range s.tokens {
		m := map[string]any{"index": i + 1, "token": map[string]any{"id": 100 + i, "text": tok, "logprob": -0.5, "special": false}, "generated_text": nil, "details": nil, "top_tokens": nil}
		if i == len(s.tokens)-1 && s.finish != "" {
			m["generated_text"] = strings.Join(s.tokens, "")
			m["details"] = map[string]any{"finish_reason": s.finish, "generated_tokens": len(s.tokens), "seed": nil, "input_length": s.promptTokens}
		}
		j, _ := json.Marshal(m)
		fmt.Fprintf(&b, "data:%s\n\n", j)
	}
	return b.Bytes()
}

// lmiTokenLines renders LMI rolling-batch JSON lines; the last line adds
// generated_text and details.
func lmiTokenLines(s streamSpec) []byte {
	var b bytes.Buffer
	for i, tok := range s.tokens {
		m := map[string]any{"token": map[string]any{"id": []int{100 + i}, "text": tok, "log_prob": -0.5}}
		if i == len(s.tokens)-1 && s.finish != "" {
			m["generated_text"] = strings.Join(s.tokens, "")
			m["details"] = map[string]any{"finish_reason": s.finish, "generated_tokens": len(s.tokens), "inputs": "the prompt"}
		}
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// testConfig returns a Config for the fake with static test credentials.
func testConfig(f *fakeSM, name string, format Format) Config {
	return Config{
		EndpointName: name,
		Format:       format,
		AWS: AWSConfig{
			Region:      "us-east-1",
			EndpointURL: f.srv.URL,
			DisableIMDS: true,
			Concurrency: 4,
			credentials: credentials.NewStaticCredentialsProvider(testAKID, testSecret, ""),
		},
	}
}
