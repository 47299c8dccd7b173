package stream

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
)

// TestParseFormat: every format parses by its name; anything else is
// refused with the list of names.
func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("bedrock")
	if want := `unknown payload format "bedrock" (want openai-chat, openai, tgi or lmi)`; err == nil || err.Error() != want {
		t.Errorf("err %v, want %s", err, want)
	}
}

// receive feeds payload to a fresh Receiver of format f, cut into parts
// at the given sizes (cycled; 0 means an empty part), and returns the
// outcome without the stamps.
func receive(f Format, payload []byte, sizes []byte) result {
	var resp backend.Response
	rcv := New(f, &resp, Options{})
	defer rcv.Release()
	now := time.Unix(0, 0)
	i := 0
	for len(payload) > 0 {
		n := len(payload)
		if len(sizes) > 0 {
			n = min(int(sizes[i%len(sizes)]), len(payload))
			i++
		}
		now = now.Add(time.Millisecond)
		if rcv.Feed(payload[:n], now) != nil {
			return summarize(&resp)
		}
		payload = payload[n:]
		if i > 1<<16 {
			sizes = nil // only empty parts: the rest in one
		}
	}
	rcv.Finish(now)
	out := summarize(&resp)
	if resp.Err != nil {
		out.Class += ": " + resp.Err.Error()
	}
	return out
}

// FuzzReceivers feeds arbitrary bytes, cut at arbitrary part boundaries,
// to every format's Receiver. It must never panic, and the outcome must
// not depend on where the parts were cut: lines are reassembled before
// any parsing, whichever transport carried the bytes.
func FuzzReceivers(f *testing.F) {
	for _, name := range []string{"vllm_chat.sse", "vllm_completions.sse", "awkward.sse", "lmi_openai.jsonl"} {
		b := readFixture(f, name)
		for fm := range byte(4) {
			f.Add(fm, b, []byte{7})
		}
	}
	for _, seed := range [][]byte{
		[]byte("data:{\"token\":{\"id\":1,\"text\":\"a\"}}\n\ndata:{\"token\":{\"id\":2,\"text\":\"b\"},\"generated_text\":\"ab\",\"details\":{\"finish_reason\":\"length\",\"generated_tokens\":2}}\n\n"),
		[]byte("{\"token\":{\"id\":[1],\"text\":\"a\"}}\n{\"token\":{\"id\":[2],\"text\":\"b\"},\"generated_text\":\"ab\",\"details\":{\"finish_reason\":\"stop\",\"generated_tokens\":2}}\n"),
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
		whole := receive(format, payload, nil)
		split := receive(format, payload, sizes)
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("%s: outcome depends on part boundaries (-whole +split):\n%s", format, diff)
		}
	})
}
