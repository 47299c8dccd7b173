package jsonscan

import (
	"encoding/json"
	"fmt"
	"testing"
)

// vocabDoc is a tokenizer.json-like vocab object with n entries, some
// escaped and some non-ASCII, as in real files.
func vocabDoc(n int) []byte {
	b := []byte{'{'}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		switch i % 10 {
		case 0:
			b = fmt.Appendf(b, `"\u0120tok%d":%d`, i, i)
		case 1:
			b = fmt.Appendf(b, `"Ġwörd%d":%d`, i, i)
		default:
			b = fmt.Appendf(b, `"token%d":%d`, i, i)
		}
	}
	return append(b, '}')
}

// BenchmarkSkip measures validating a 100k-entry vocab without decoding.
func BenchmarkSkip(b *testing.B) {
	doc := vocabDoc(100_000)
	b.SetBytes(int64(len(doc)))
	var s Scanner
	for b.Loop() {
		s.Reset(doc)
		if err := s.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVocab measures decoding the same vocab into a map, as the
// tokenizer does; BenchmarkVocabStd is encoding/json doing the same.
func BenchmarkVocab(b *testing.B) {
	doc := vocabDoc(100_000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var s Scanner
	for b.Loop() {
		s.Reset(doc)
		m := make(map[string]int, 100_000)
		err := s.Object(func(k []byte) error {
			id, err := s.Int()
			m[string(k)] = id
			return err
		})
		if err != nil || len(m) != 100_000 {
			b.Fatal(err, len(m))
		}
	}
}

func BenchmarkVocabStd(b *testing.B) {
	doc := vocabDoc(100_000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		m := make(map[string]int, 100_000)
		if err := json.Unmarshal(doc, &m); err != nil || len(m) != 100_000 {
			b.Fatal(err, len(m))
		}
	}
}

// BenchmarkRawString: the strings of a streamed completion chunk.
func BenchmarkRawString(b *testing.B) {
	doc := []byte(`"cmpl-7d9f77809f497e25" "text_completion" "llmbench-sim" "index" "text" " stone" "logprobs" "finish_reason" "stop_reason" "meta-llama/Llama-3.1-8B-Instruct"`)
	var s Scanner
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		s.Reset(doc)
		for s.i < len(doc) {
			if _, _, err := s.rawString(); err != nil {
				b.Fatal(err)
			}
			s.i++ // the space
		}
	}
}
