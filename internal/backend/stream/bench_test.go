package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
)

// chatStream100 builds a vLLM-shaped chat stream: a role chunk, 100 content
// chunks, a usage chunk and [DONE], returned as one slice per message (one
// read per message, as on a loopback connection).
func chatStream100() [][]byte {
	const head = `data: {"id":"chatcmpl-bench-1a2b3c4d-0","object":"chat.completion.chunk","created":1764403200,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":`
	var msgs [][]byte
	msgs = append(msgs, []byte(head+`{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"))
	for i := range 100 {
		fr := "null"
		if i == 99 {
			fr = `"length","stop_reason":null`
		}
		msgs = append(msgs, fmt.Appendf(nil, head+`{"content":" tok%d"},"logprobs":null,"finish_reason":%s}]}`+"\n\n", i, fr))
	}
	msgs = append(msgs, []byte(`data: {"id":"chatcmpl-bench-1a2b3c4d-0","object":"chat.completion.chunk","created":1764403200,"model":"Qwen/Qwen3-0.6B","choices":[],"usage":{"prompt_tokens":256,"total_tokens":356,"completion_tokens":100}}`+"\n\n"))
	msgs = append(msgs, []byte("data: [DONE]\n\n"))
	return msgs
}

// BenchmarkCollectorChat100 is the whole per-request client work for a
// 100-chunk chat stream: split, decode, stamp, append text.
func BenchmarkCollectorChat100(b *testing.B) {
	msgs := chatStream100()
	total := 0
	for _, m := range msgs {
		total += len(m)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	var c Collector
	c.Parser.Decoder.Mode = ModeChat
	now := time.Now()
	for b.Loop() {
		resp := backend.Response{}
		c.Reset(&resp)
		for _, m := range msgs {
			if err := c.Feed(m, now); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.Finish(now); err != nil || resp.Chunks.Len() != 101 {
			b.Fatalf("err %v, %d chunks", err, resp.Chunks.Len())
		}
	}
}

// BenchmarkDecoderChunk decodes one typical chat content chunk.
func BenchmarkDecoderChunk(b *testing.B) {
	msg := bytes.TrimPrefix(bytes.TrimSpace(chatStream100()[50]), []byte("data: "))
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	d := Decoder{Mode: ModeChat}
	for b.Loop() {
		if _, err := d.Decode(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecoderStream decodes the messages of a 100-chunk chat stream
// in order, as one stream's Decoder does; per message.
func BenchmarkDecoderStream(b *testing.B) {
	var msgs [][]byte
	for _, m := range chatStream100()[:102] { // not [DONE]
		msgs = append(msgs, bytes.TrimPrefix(bytes.TrimSpace(m), []byte("data: ")))
	}
	b.ReportAllocs()
	d := Decoder{Mode: ModeChat}
	for b.Loop() {
		for _, m := range msgs {
			if _, err := d.Decode(m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/msg")
}

// stdChunk is the encoding/json alternative the Decoder was measured
// against.
type stdChunk struct {
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     *int `json:"prompt_tokens"`
		CompletionTokens *int `json:"completion_tokens"`
	} `json:"usage"`
}

// BenchmarkStdJSONChunk decodes the same chunk with encoding/json into
// small structs, for comparison with BenchmarkDecoderChunk.
func BenchmarkStdJSONChunk(b *testing.B) {
	msg := bytes.TrimPrefix(bytes.TrimSpace(chatStream100()[50]), []byte("data: "))
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		var c stdChunk
		if err := json.Unmarshal(msg, &c); err != nil || len(c.Choices) != 1 {
			b.Fatal(err)
		}
	}
}
