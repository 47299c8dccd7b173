package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/hfhub/hubtest"
)

// gpt2Files returns the committed GPT-2 tokenizer.json and config.
func gpt2Files(t testing.TB) (tokJSON, config []byte) {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join(testdataDir, "gpt2", "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return readGzip(t, filepath.Join(testdataDir, "gpt2", "tokenizer.json.gz")), cfg
}

func hubClient(t *testing.T, url string) *hfhub.Client {
	env := map[string]string{"HF_HUB_CACHE": t.TempDir(), "HF_ENDPOINT": url, "HOME": t.TempDir()}
	return hfhub.FromEnv(func(k string) string { return env[k] })
}

func TestLoadFromHubThenCache(t *testing.T) {
	tokJSON, cfg := gpt2Files(t)
	hub, url := hubtest.Start(t)
	hub.Add(hubtest.Repo{ID: "openai-community/gpt2", Files: map[string][]byte{
		"tokenizer.json":        tokJSON,
		"tokenizer_config.json": cfg,
	}})
	// Stands in for o200k_base; served through LFS like large files on the hub.
	hub.Add(hubtest.Repo{ID: "Xenova/gpt-4o", Files: map[string][]byte{"tokenizer.json": tokJSON}, LFS: []string{"tokenizer.json"}})
	client := hubClient(t, url)

	tok, err := Load(t.Context(), "openai-community/gpt2", Options{Hub: client})
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("Hello world", false); !slices.Equal(got, []int{15496, 995}) {
		t.Errorf("Encode = %v", got)
	}
	if tok.ID() != "openai-community/gpt2" || !slices.Equal(tok.SpecialIDs(), []int{50256}) {
		t.Errorf("ID %q, SpecialIDs %v", tok.ID(), tok.SpecialIDs())
	}
	// The next load, offline, is served by the cache alone.
	hits := hub.RequestCount()
	client.Offline = true
	if _, err := Load(t.Context(), "openai-community/gpt2", Options{Hub: client}); err != nil {
		t.Fatalf("offline load from cache: %v", err)
	}
	if n := hub.RequestCount(); n != hits {
		t.Errorf("offline load asked the hub %d times", n-hits)
	}
	// Offline with no cached copy fails clearly.
	_, err = Load(t.Context(), "google/gemma-3-4b-it", Options{Hub: client})
	if err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") || !strings.Contains(err.Error(), "google/gemma-3-4b-it") {
		t.Errorf("offline, uncached: err = %v", err)
	}
	client.Offline = false
	// An encoding name resolves through its hub alias; a repository
	// without tokenizer_config.json has no named special tokens.
	tok, err = Load(t.Context(), "o200k_base", Options{Hub: client})
	if err != nil {
		t.Fatal(err)
	}
	if tok.ID() != "o200k_base" || len(tok.SpecialIDs()) != 0 {
		t.Errorf("alias: ID %q, SpecialIDs %v", tok.ID(), tok.SpecialIDs())
	}
}

func TestLoadLocal(t *testing.T) {
	tokJSON, cfg := gpt2Files(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), tokJSON, 0o644)
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644)
	for _, p := range []string{dir, filepath.Join(dir, "tokenizer.json")} {
		tok, err := Load(t.Context(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tok.ID() != p || tok.VocabSize() != 50257 || !slices.Equal(tok.SpecialIDs(), []int{50256}) {
			t.Errorf("Load(%s): ID %q VocabSize %d SpecialIDs %v", p, tok.ID(), tok.VocabSize(), tok.SpecialIDs())
		}
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	spm := t.TempDir()
	os.WriteFile(filepath.Join(spm, "tokenizer.model"), []byte("x"), 0o644)
	bad := filepath.Join(t.TempDir(), "tokenizer.json")
	os.WriteFile(bad, []byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "normalizer": {"type": "BertNormalizer"}}`), 0o644)
	tests := []struct{ name, arg, want string }{
		{"empty name", "", "empty name"},
		{"folder without tokenizer.json", empty, "folder has no tokenizer.json"},
		{"sentencepiece only", spm, "tokenizer.model"},
		{"unsupported component", bad, `normalizer "BertNormalizer" is not supported`},
		{"not a path nor an id", "no such/thing here", "not a Hugging Face hub id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(t.Context(), tc.arg, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestUnsupportedComponents checks that anything outside the BPE pipelines
// fails at load, naming the component.
func TestUnsupportedComponents(t *testing.T) {
	base := `{"model": %s, "normalizer": %s, "pre_tokenizer": %s, "post_processor": %s, "decoder": %s}`
	bpe := `{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}`
	tests := []struct {
		name, json, want string
	}{
		{"WordPiece", fmtJSON(base, `{"type": "WordPiece", "vocab": {}}`, "null", "null", "null", "null"), `model "WordPiece"`},
		{"Unigram", fmtJSON(base, `{"type": "Unigram", "vocab": []}`, "null", "null", "null", "null"), `model "Unigram"`},
		{"WordLevel", fmtJSON(base, `{"type": "WordLevel", "vocab": {}}`, "null", "null", "null", "null"), `model "WordLevel"`},
		{"Precompiled", fmtJSON(base, bpe, `{"type": "Precompiled", "precompiled_charsmap": ""}`, "null", "null", "null"), `normalizer "Precompiled"`},
		{"BertPreTokenizer", fmtJSON(base, bpe, "null", `{"type": "BertPreTokenizer"}`, "null", "null"), `pre_tokenizer "BertPreTokenizer"`},
		{"CharDelimiterSplit", fmtJSON(base, bpe, "null", `{"type": "CharDelimiterSplit", "delimiter": "x"}`, "null", "null"), `pre_tokenizer "CharDelimiterSplit"`},
		{"WordPiece decoder", fmtJSON(base, bpe, "null", "null", "null", `{"type": "WordPiece"}`), `decoder "WordPiece"`},
		{"CTC decoder", fmtJSON(base, bpe, "null", "null", "null", `{"type": "CTC"}`), `decoder "CTC"`},
		{"dropout", fmtJSON(base, `{"type": "BPE", "dropout": 0.1, "vocab": {}, "merges": []}`, "null", "null", "null", "null"), "dropout"},
		{"merge not in vocab", fmtJSON(base, `{"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}`, "null", "null", "null", "null"), "not in vocab"},
		{"bad regex", fmtJSON(base, bpe, "null", `{"type": "Split", "pattern": {"Regex": "(("}, "behavior": "Isolated"}`, "null", "null"), "Split"},
		{"bad behavior", fmtJSON(base, bpe, "null", `{"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"}`, "null", "null"), "Sideways"},
		{"no model", `{}`, "no model"},
		{"not JSON", `{"model": `, "tokenizer.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x", []byte(tc.json), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	tok, err := Parse("x", []byte(fmtJSON(base, bpe, "null", "null", "null", "null")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("abba", false); !slices.Equal(got, []int{2, 1, 0}) {
		t.Errorf("minimal BPE: Encode(abba) = %v, want [2 1 0]", got)
	}
}

func fmtJSON(format string, parts ...string) string {
	for _, p := range parts {
		format = strings.Replace(format, "%s", p, 1)
	}
	return format
}

// TestConcurrentEncode runs encoders in parallel (for the race detector and
// the shared word cache).
func TestConcurrentEncode(t *testing.T) {
	tokJSON, cfg := gpt2Files(t)
	tok, err := Parse("gpt2", tokJSON, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := tok.Encode("Hello concurrent world, again and again", false)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := tok.Encode("Hello concurrent world, again and again", false); !slices.Equal(got, want) {
					t.Errorf("got %v", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestInvalidUTF8(t *testing.T) {
	tokJSON, cfg := gpt2Files(t)
	tok, err := Parse("gpt2", tokJSON, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// "\xe2\x82" is a truncated 3-byte sequence: one U+FFFD, as Rust's
	// from_utf8_lossy; "\xff" is another.
	got := tok.Encode("a\xe2\x82b\xffc", false)
	want := tok.Encode("a\ufffdb\ufffdc", false)
	if !slices.Equal(got, want) {
		t.Errorf("Encode(invalid) = %v, want %v", got, want)
	}
}

func TestLossyUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ok", "ok"},
		{"\xe2\x82", "\ufffd"},
		{"\xe2\x82\xe2\x82\xac", "\ufffd€"},
		{"\xf0\x9f\x98", "\ufffd"},
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}, // surrogate: each byte invalid
		{"\xc0\xaf", "\ufffd\ufffd"},
		{"\xff\xfe", "\ufffd\ufffd"},
		{"a\xf4\x90\x80\x80", "a\ufffd\ufffd\ufffd\ufffd"},
	}
	for _, tc := range tests {
		if got := lossyUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("lossyUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStripDecoderStop(t *testing.T) {
	d := stripDecoder{content: ' ', start: 1, stop: 2}
	got := d.decodeChain([]string{"  a  ", " ", "", "b   "})
	want := []string{" a", "", "", "b "}
	if !slices.Equal(got, want) {
		t.Errorf("decodeChain = %q, want %q", got, want)
	}
}
