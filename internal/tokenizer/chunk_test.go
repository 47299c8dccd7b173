package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// TestChunkedEncodeMatchesReference encodes the reference corpus and the
// random strings with chunks as small as they get (a cut at every safe
// point) and compares with Hugging Face's ids; and one long text made of
// the whole corpus, chunked and whole.
func TestChunkedEncodeMatchesReference(t *testing.T) {
	corpus, randoms := loadCorpus(t)
	for _, rt := range refTokenizers {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			tok, err := Load(t.Context(), tokenizerDir(t, rt), Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("chunk separator %q", tok.chunkSep)
			exp := loadExpected(t, rt.name)
			tok.chunkBytes = 1
			m := &mismatches{t: t, what: "chunked encode"}
			for i, s := range corpus {
				got := tok.Encode(s, false)
				m.check(slices.Equal(got, exp.Corpus[i]), "Encode(%q) in chunks =\n  %v\nwant\n  %v", short(s), got, exp.Corpus[i])
			}
			for i, s := range randoms {
				got := tok.Encode(s, false)
				m.check(slices.Equal(got, exp.Random[i]), "Encode(%q) in chunks =\n  %v\nwant\n  %v", s, got, exp.Random[i])
			}
			m.done(len(corpus) + len(randoms))

			long := strings.Join(corpus, " ")
			chunked := tok.Encode(long, true)
			count := tok.CountTokens(long)
			tok.chunkBytes = len(long) + 1
			whole := tok.Encode(long, true)
			if !slices.Equal(chunked, whole) {
				t.Errorf("a %d-byte text gives %d ids in chunks, %d whole (or other ids)", len(long), len(chunked), len(whole))
			}
			if count+tok.NumSpecialTokensToAdd() != len(whole) {
				t.Errorf("CountTokens in chunks = %d (+%d special), want %d", count, tok.NumSpecialTokensToAdd(), len(whole))
			}
		})
	}
}

// TestChunkSeparator: the pipelines that may be cut, and those that may
// not.
func TestChunkSeparator(t *testing.T) {
	t.Parallel()
	want := map[string]string{"gpt2": " ", "mistral7b": "▁", "llama3": " ", "qwen3": " ", "gpt4o": " ", "cl100k": " "}
	for _, rt := range refTokenizers {
		w, ok := want[rt.name]
		if !ok {
			continue
		}
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			tok, err := Load(t.Context(), tokenizerDir(t, rt), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tok.chunkSep != w {
				t.Errorf("chunk separator %q, want %q", tok.chunkSep, w)
			}
		})
	}
	for _, tc := range []struct {
		tok  string
		join bool
	}{
		{"▁the", false}, {"▁▁", false}, {"a▁", true}, {"▁a▁b", true}, {"the", false},
	} {
		if got := joinsBefore(tc.tok, "▁"); got != tc.join {
			t.Errorf("joinsBefore(%q) = %v", tc.tok, got)
		}
	}
}

func TestCutPoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want int
	}{
		{"hello world again", 8, 5},   // last safe cut at or before n (plus the separator)
		{"hello world again", 12, 11}, // the later one
		{"helloworld again", 3, 10},   // none before: the first after
		{"a  b 1 c", 2, 0},            // double space, digit: no safe cut
		{"short", 10, 0},              // shorter than n
	} {
		if got := cutPoint(tc.s, " ", tc.n); got != tc.want {
			t.Errorf("cutPoint(%q, %d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}
