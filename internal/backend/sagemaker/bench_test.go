package sagemaker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
)

// BenchmarkDecode measures reassembly and decoding of one response cut in
// 7-byte parts, per format (no network).
func BenchmarkDecode(b *testing.B) {
	spec := streamSpec{tokens: testTokens, finish: "length", promptTokens: 7, usage: true, done: true}
	for _, tt := range []struct {
		format  Format
		payload []byte
	}{
		{FormatOpenAIChat, vllmChatSSE(spec)},
		{FormatOpenAI, vllmCompletionsSSE(spec)},
		{FormatTGI, tgiSSE(spec)},
		{FormatLMI, lmiTokenLines(spec)},
	} {
		parts := fixedSplit(7)(tt.payload)
		be := &Backend{format: tt.format}
		b.Run(string(tt.format), func(b *testing.B) {
			b.SetBytes(int64(len(tt.payload)))
			now := time.Now()
			for b.Loop() {
				var resp backend.Response
				dec := be.newReceiver(&backend.Request{}, &resp)
				for _, p := range parts {
					if dec.Feed(p, now) != nil {
						b.Fatal(resp.Err)
					}
				}
				be.finish(dec, &resp, now)
				if resp.Err != nil {
					b.Fatal(resp.Err)
				}
			}
		})
	}
}

// BenchmarkSend measures one whole SageMaker call against the loopback
// fake (SDK signing, event-stream decoding, reassembly) with 7-byte parts
// and with the whole response in one part: the difference is the cost of
// tiny parts (docs/sagemaker.md#cost-of-tiny-parts), including the fake's own writes.
func BenchmarkSend(b *testing.B) {
	spec := streamSpec{tokens: testTokens, finish: "length", promptTokens: 7, usage: true, done: true}
	for _, part := range []int{7, 4096} {
		b.Run(fmt.Sprintf("parts-%d", part), func(b *testing.B) {
			f := newFakeSM(b, false)
			f.on("bench", streamParts(vllmChatSSE(spec), fixedSplit(part), 0))
			be := newTestBackend(b, f, "bench", FormatOpenAIChat)
			req := &backend.Request{Prompt: "p", MaxTokens: len(testTokens)}
			for b.Loop() {
				var resp backend.Response
				be.Send(context.Background(), req, &resp)
				if resp.Err != nil {
					b.Fatal(resp.Err)
				}
			}
		})
	}
}
