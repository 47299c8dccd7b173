package dataset

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSyntheticShareGPT writes n ShareGPT entries of 2-6 turns, 20-120
// words each (about 2.3 KB per entry), like real ShareGPT files.
func writeSyntheticShareGPT(tb testing.TB, dir string, n int) (string, int64) {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	words := fallbackWords
	text := func() string {
		k := 20 + r.IntN(100)
		var sb strings.Builder
		for i := range k {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		return sb.String()
	}
	type turn struct {
		From  string `json:"from"`
		Value string `json:"value"`
	}
	type entry struct {
		ID            string `json:"id"`
		Conversations []turn `json:"conversations"`
	}
	entries := make([]entry, n)
	for i := range entries {
		turns := make([]turn, 2+r.IntN(5))
		for k := range turns {
			from := "human"
			if k%2 == 1 {
				from = "gpt"
			}
			turns[k] = turn{from, text()}
		}
		entries[i] = entry{fmt.Sprintf("e%d", i), turns}
	}
	p := filepath.Join(dir, "sharegpt.json")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	if err := enc.Encode(entries); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, _ := os.Stat(p)
	return p, st.Size()
}

// BenchmarkLoadShareGPT100k loads a 100,000-entry ShareGPT file and samples
// 1000 requests with the GPT-2 tokenizer (read, parse, filter, shuffle,
// tokenize the walked entries).
func BenchmarkLoadShareGPT100k(b *testing.B) {
	path, size := writeSyntheticShareGPT(b, b.TempDir(), 100_000)
	tok := realTokenizer(b, "gpt2")
	cfg := Config{Name: ShareGPT, Path: path, NumPrompts: 1000}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		reqs, _, err := Load(b.Context(), cfg, tok)
		if err != nil || len(reqs) != 1000 {
			b.Fatalf("%d requests, %v", len(reqs), err)
		}
	}
}

// BenchmarkRandom1000x1024 samples vLLM's default random workload (1000
// prompts of 1024 tokens) with the GPT-2 tokenizer.
func BenchmarkRandom1000x1024(b *testing.B) {
	tok := realTokenizer(b, "gpt2")
	for b.Loop() {
		if _, _, err := Load(b.Context(), Config{NumPrompts: 1000}, tok); err != nil {
			b.Fatal(err)
		}
	}
}
