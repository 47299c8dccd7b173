package tokenizer

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
			peak := watchHeap()
			for b.Loop() {
				if count {
					tok.CountTokens(text)
				} else {
					tok.Encode(text, false)
				}
			}
			b.ReportMetric(float64(peak()), "peak-extra-B")
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(n), "B/token")
		})
	}
}

// watchHeap samples the heap every millisecond until the returned
// function is called, which gives the largest sample above the heap at the
// start (after a collection).
func watchHeap() func() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	peak.Store(base)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); <-done; return peak.Load() - base }
}
