package metrics

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// benchITLs is the number of chunk gaps per request in the benchmarks.
const benchITLs = 128

var (
	benchOnce sync.Once
	benchRecs []record.Record
)

// benchRecords builds 1M synthetic successful requests with 128 ITLs each
// (one shared backing array, so the input itself is 1 GiB of gaps), once
// per process; smaller sizes use a prefix.
func benchRecords() []record.Record {
	benchOnce.Do(func() {
		const n = 1_000_000
		rng := rand.New(rand.NewPCG(7, 11))
		gaps := make([]float64, n*benchITLs)
		for i := range gaps {
			gaps[i] = 0.01 + rng.ExpFloat64()*0.02
		}
		benchRecs = make([]record.Record, n)
		for i := range benchRecs {
			itl := gaps[i*benchITLs : (i+1)*benchITLs : (i+1)*benchITLs]
			ttft := 0.05 + rng.Float64()*0.5
			lat := ttft
			for _, g := range itl {
				lat += g
			}
			out := benchITLs + 1
			benchRecs[i] = record.Record{
				Index: i, Success: true, PromptLen: 256, OutputTokens: &out,
				TTFT: ttft, ITL: itl, Latency: lat, StartTime: float64(i) * 0.001,
			}
		}
	})
	return benchRecs
}

// BenchmarkSummarize measures Summarize over 250k, 500k and 1M records of
// 128 ITLs each (32M to 128M pooled ITL values): time per record should
// stay flat as the size grows.
func BenchmarkSummarize(b *testing.B) {
	all := benchRecords()
	p := Params{
		Duration:          1100,
		Percentiles:       []float64{50, 90, 99, 99.9},
		PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL},
		Goodput:           map[string]float64{"ttft": 500, "tpot": 40},
	}
	for _, n := range []int{250_000, 500_000, 1_000_000} {
		recs := all[:n]
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Summarize(recs, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}

// BenchmarkDescribe isolates the statistics of one pooled list (NumPy
// mean/std plus median and four percentiles by selection).
func BenchmarkDescribe(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]float64, 1<<22)
	for i := range src {
		src[i] = rng.ExpFloat64()
	}
	work := make([]float64, len(src))
	pcts := []float64{50, 90, 99, 99.9}
	b.ReportAllocs()
	for b.Loop() {
		copy(work, src)
		describe("x", work, pcts)
	}
}
