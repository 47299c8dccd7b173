// Package tokenizertest gives tests the tokenizer files committed under
// testdata/tokenizer (GPT-2 and Mistral-7B, gzip-compressed): unpacked into
// a temporary folder, or parsed once per test binary.
package tokenizertest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/tokenizer"
)

// Names of the committed tokenizers.
const (
	GPT2      = "gpt2"
	Mistral7B = "mistral7b"
)

// source is testdata/tokenizer/name at the repository root, found from this
// file's location so it works from any package's test.
func source(tb testing.TB, name string) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("tokenizertest: cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "tokenizer", name)
}

// files returns the tokenizer.json and tokenizer_config.json of name.
func files(tb testing.TB, name string) (data, config []byte) {
	tb.Helper()
	src := source(tb, name)
	f, err := os.Open(filepath.Join(src, "tokenizer.json.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	data, err = io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	config, err = os.ReadFile(filepath.Join(src, "tokenizer_config.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return data, config
}

// Dir unpacks tokenizer name into a temporary folder and returns it, for
// tests of the path a user passes as --tokenizer.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	data, config := files(tb, name)
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), config, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

var (
	mu    sync.Mutex
	cache = map[string]*tokenizer.Tokenizer{}
)

// Load parses tokenizer name once per test binary (it is safe for
// concurrent use) and returns it.
func Load(tb testing.TB, name string) *tokenizer.Tokenizer {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if t, ok := cache[name]; ok {
		return t
	}
	data, config := files(tb, name)
	t, err := tokenizer.Parse(name, data, config)
	if err != nil {
		tb.Fatal(err)
	}
	cache[name] = t
	return t
}
