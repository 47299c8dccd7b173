package tokenizer

import (
	"strings"
	"testing"
)

// BenchmarkLoad measures reading and parsing each tokenizer (tokenizer.json
// plus tokenizer_config.json from a local folder).
func BenchmarkLoad(b *testing.B) {
	for _, rt := range refTokenizers {
		b.Run(rt.name, func(b *testing.B) {
			dir := tokenizerDir(b, rt)
			for b.Loop() {
				if _, err := Load(b.Context(), dir, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncode measures encoding throughput (MB/s of UTF-8 input) on the
// corpus and the random strings, with a fresh word cache each round so the
// figure is not a cache-hit rate.
func BenchmarkEncode(b *testing.B) {
	corpus, randoms := loadCorpus(b)
	texts := append(append([]string{}, corpus...), randoms...)
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	for _, rt := range refTokenizers {
		b.Run(rt.name, func(b *testing.B) {
			tok, err := Load(b.Context(), tokenizerDir(b, rt), Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				clear(tok.model.cache)
				for _, s := range texts {
					tok.Encode(s, false)
				}
			}
		})
	}
}

// BenchmarkEncodeProse measures the common case: English prose, where the
// word cache hits often.
func BenchmarkEncodeProse(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, then naps under 3 trees. ", 2000)
	for _, rt := range refTokenizers {
		b.Run(rt.name, func(b *testing.B) {
			tok, err := Load(b.Context(), tokenizerDir(b, rt), Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.Encode(text, false)
			}
		})
	}
}

// BenchmarkDecode measures decoding the corpus's ids.
func BenchmarkDecode(b *testing.B) {
	for _, rt := range refTokenizers {
		b.Run(rt.name, func(b *testing.B) {
			tok, err := Load(b.Context(), tokenizerDir(b, rt), Options{})
			if err != nil {
				b.Fatal(err)
			}
			exp := loadExpected(b, rt.name)
			n := 0
			for _, ids := range exp.Random {
				n += len(ids)
			}
			for b.Loop() {
				for _, ids := range exp.Random {
					tok.Decode(ids)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ids/s")
		})
	}
}
