package bench

import (
	"context"
	"flag"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
)

var memRequests = flag.Int("mem-requests", 100_000, "requests per BenchmarkStepMemory run")

// instantBackend answers at once with chunks token chunks and their text.
type instantBackend struct{ chunks int }

func (b instantBackend) Send(_ context.Context, _ *backend.Request, resp *backend.Response) {
	resp.Start = time.Now()
	resp.Chunks.Grow(b.chunks)
	for i := range b.chunks {
		resp.Chunks.Append(resp.Start.Add(time.Duration(i+1) * time.Millisecond))
	}
	resp.Text = strings.Repeat("word ", b.chunks)
	n := b.chunks
	resp.CompletionTokens, resp.PromptTokens = &n, &n
	resp.FinishReason = "length"
}

// BenchmarkStepMemory measures what a step keeps per request until it is
// summarized (the record with its ITLs and generated text: the cost of
// computing exact metrics at the end), for 128-token outputs. Run with
// -mem-requests 1000000 for the README's 1M figure:
//
//	go test -run x -bench StepMemory -benchtime 1x ./internal/bench -mem-requests 1000000
func BenchmarkStepMemory(b *testing.B) {
	n := *memRequests
	reqs := make([]backend.Request, n)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, Prompt: "p", MaxTokens: 128}
	}
	p := &Plan{Backend: instantBackend{chunks: 128}, Requests: reqs,
		Load: Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: 64}}
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := Execute(context.Background(), p, Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "heap-B/request")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "heap-MB")
		runtime.KeepAlive(out)
	}
}
