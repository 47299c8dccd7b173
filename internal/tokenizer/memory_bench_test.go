package tokenizer

import (
	"runtime"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/heapwatch"
)

// longText is n bytes of the reference corpus's texts joined with spaces,
// repeated: prose, code and many scripts, like a long ShareGPT turn.
func longText(b *testing.B, n int) string {
	corpus, _ := loadCorpus(b)
	var sb strings.Builder
	for sb.Len() < n {
		for _, s := range corpus {
			sb.WriteString(s)
			sb.WriteString(" ")
		}
	}
	return sb.String()[:n]
}

// BenchmarkEncodeLongMemory encodes one 8 MiB text, the case that made a
// 100 MB ShareGPT turn take 6.3 GB: B/token is what Encode allocates per
// token it returns; peak-extra-B is the largest heap seen while it runs
// (sampled every millisecond, garbage not yet collected included) above
// the heap before it (tokenizer, corpus, text). Run it with GOGC=10 so that
// the peak follows what Encode holds rather than the collector's pacing.
func BenchmarkEncodeLongMemory(b *testing.B) { benchLongMemory(b, false) }

// BenchmarkCountLongMemory is BenchmarkEncodeLongMemory for CountTokens
// (what the datasets call), which never holds all the ids of a text.
func BenchmarkCountLongMemory(b *testing.B) { benchLongMemory(b, true) }

func benchLongMemory(b *testing.B, count bool) {
	text := longText(b, 8<<20)
	for _, rt := range refTokenizers {
		b.Run(rt.name, func(b *testing.B) {
			tok, err := Load(b.Context(), tokenizerDir(b, rt), Options{})
			if err != nil {
				b.Fatal(err)
			}
			n := len(tok.Encode(text, false))
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			stop := heapwatch.Start()
			for b.Loop() {
				if count {
					tok.CountTokens(text)
				} else {
					tok.Encode(text, false)
				}
			}
			peak, base := stop()
			b.ReportMetric(float64(peak-base), "peak-extra-B")
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(n), "B/token")
		})
	}
}
