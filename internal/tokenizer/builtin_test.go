package tokenizer

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/hfhub"
)

// TestBuiltinGPT2 keeps the embedded copy identical to the test data and
// checks it encodes like the file.
func TestBuiltinGPT2(t *testing.T) {
	for _, pair := range [][2]string{
		{"builtin/gpt2.tokenizer.json.gz", "../../testdata/tokenizer/gpt2/tokenizer.json.gz"},
		{"builtin/gpt2.tokenizer_config.json", "../../testdata/tokenizer/gpt2/tokenizer_config.json"},
	} {
		a, err := builtinFS.ReadFile(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from %s", pair[0], pair[1])
		}
	}
	tok, err := Load(t.Context(), BuiltinGPT2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("Hello world", false); !slices.Equal(got, []int{15496, 995}) {
		t.Errorf("Encode(Hello world) = %v, want [15496 995]", got)
	}
	if tok.VocabSize() != 50257 || tok.ID() != BuiltinGPT2 {
		t.Errorf("vocab %d, id %q", tok.VocabSize(), tok.ID())
	}
	if _, err := Load(t.Context(), "builtin:nope", Options{}); err == nil || !strings.Contains(err.Error(), "builtin:gpt2") {
		t.Errorf("unknown builtin: %v", err)
	}
}

// TestLoadErrInvalid: bad input is marked ErrInvalid (the CLI's exit code
// 2); a passing fault such as an unreachable hub is not.
func TestLoadErrInvalid(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/tokenizer.json", []byte(`{"model": {"type": "WordPiece"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hub := &hfhub.Client{Endpoint: "http://127.0.0.1:1", CacheDir: t.TempDir()}
	for _, tc := range []struct {
		name    string
		invalid bool
	}{
		{"", true},
		{"builtin:nope", true},
		{"not a path or an id!", true},
		{dir, true},           // unsupported model type
		{t.TempDir(), true},   // a folder without tokenizer.json
		{"acme/model", false}, // the hub cannot be reached: try again later
	} {
		_, err := Load(t.Context(), tc.name, Options{Hub: hub})
		if err == nil || errors.Is(err, ErrInvalid) != tc.invalid {
			t.Errorf("Load(%q) = %v; ErrInvalid %v, want %v", tc.name, err, errors.Is(err, ErrInvalid), tc.invalid)
		}
	}
}
