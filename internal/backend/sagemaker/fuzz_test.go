package sagemaker

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
)

// decodeAll feeds payload to a fresh decoder of format f, cut into parts at
// the given sizes (cycled; 0 means an empty part), and returns the outcome.
func decodeAll(f Format, payload []byte, sizes []byte) outcome {
	var resp backend.Response
	b := &Backend{format: f}
	dec := b.newReceiver(&backend.Request{}, &resp)
	now := time.Unix(0, 0)
	i := 0
	for len(payload) > 0 {
		n := len(payload)
		if len(sizes) > 0 {
			n = min(int(sizes[i%len(sizes)]), len(payload))
			i++
		}
		now = now.Add(time.Millisecond)
		if dec.Feed(payload[:n], now) != nil {
			return outcomeOf(&resp)
		}
		payload = payload[n:]
		if i > 1<<16 {
			break // only empty parts: stop
		}
	}
	b.finish(dec, &resp, now)
	return outcomeOf(&resp)
}

// FuzzDecoders feeds arbitrary bytes, cut at arbitrary part boundaries, to
// every format's decoder. It must never panic, and the outcome must not
// depend on where the parts were cut (reassembly happens before any
// parsing).
func FuzzDecoders(f *testing.F) {
	spec := streamSpec{tokens: testTokens, finish: "length", promptTokens: 7, usage: true, done: true}
	for _, seed := range [][]byte{
		vllmChatSSE(spec), vllmCompletionsSSE(spec), lmiChatJSONLines(spec), tgiSSE(spec), lmiTokenLines(spec),
		[]byte("data: {\"choices\":[{\"delta\":{\"content\":\"\xe4\xb8"),
		[]byte("data:{\"token\":{\"id\":1,\"text\":\"a\"}}\r\n\r\ndata:{\"error\":\"x\"}\n\n"),
		[]byte("{\"token\":\n{\"id\":[1]}}\n{\"generated_text\":\"\",\"details\":null}\n"),
		[]byte(": ping\n\nevent: x\nid: 1\ndata: [DONE]\n\n"),
	} {
		for fm := range byte(4) {
			f.Add(fm, seed, []byte{7})
			f.Add(fm, seed, []byte{1, 0, 3})
		}
	}
	f.Fuzz(func(t *testing.T, fm byte, payload, sizes []byte) {
		format := Formats[int(fm)%len(Formats)]
		whole := decodeAll(format, payload, nil)
		split := decodeAll(format, payload, sizes)
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("%s: outcome depends on part boundaries (-whole +split):\n%s", format, diff)
		}
	})
}
