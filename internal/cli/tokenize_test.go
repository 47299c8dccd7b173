package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/cli"
	"github.com/llmbench/llmbench/internal/tokenizer/tokenizertest"
)

// tkTokenizerDir unpacks a committed test tokenizer (gpt2, mistral7b) into a
// temporary folder.
func tkTokenizerDir(t *testing.T, name string) string { return tokenizertest.Dir(t, name) }

func tkRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), "test", args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestTokenize(t *testing.T) {
	// Offline with an empty cache: nothing here may reach a network.
	t.Setenv("HF_HUB_OFFLINE", "1")
	t.Setenv("HF_HOME", t.TempDir())
	gpt2 := tkTokenizerDir(t, "gpt2")
	mistral := tkTokenizerDir(t, "mistral7b")
	batch := filepath.Join(t.TempDir(), "batch.json")
	os.WriteFile(batch, []byte(`["Hello world", "", "<|endoftext|>!"]`), 0o644)
	notArray := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(notArray, []byte(`{"text": "x"}`), 0o644)

	tests := []struct {
		name       string
		stdin      string
		args       []string
		code       int
		out, inErr string
	}{
		{"text argument", "", []string{"tokenize", "--tokenizer", gpt2, "Hello world"}, 0, "[15496,995]\n2 tokens\n", ""},
		{"standard input, byte for byte", "Hello world\n", []string{"tokenize", "--tokenizer", gpt2}, 0, "[15496,995,198]\n3 tokens\n", ""},
		{"BOS with --add-special-tokens", "", []string{"tokenize", "--tokenizer", mistral, "--add-special-tokens", "Hello"}, 0, "[1,22557]\n2 tokens\n", ""},
		{"no BOS by default", "", []string{"tokenize", "--tokenizer", mistral, "Hello"}, 0, "[22557]\n1 tokens\n", ""},
		{"tokenizer.json file", "", []string{"tokenize", "--tokenizer", filepath.Join(gpt2, "tokenizer.json"), "<|endoftext|>"}, 0, "[50256]\n1 tokens\n", ""},
		{"batch", "", []string{"tokenize", "--tokenizer", gpt2, "--batch", batch}, 0, "[[15496,995],[],[50256,0]]\n", ""},
		{"missing --tokenizer", "", []string{"tokenize", "x"}, 2, "", "--tokenizer is required"},
		{"text and batch", "", []string{"tokenize", "--tokenizer", gpt2, "--batch", batch, "x"}, 2, "", "not both"},
		{"batch not an array", "", []string{"tokenize", "--tokenizer", gpt2, "--batch", notArray}, 2, "", "JSON array of strings"},
		{"batch missing", "", []string{"tokenize", "--tokenizer", gpt2, "--batch", filepath.Join(t.TempDir(), "none.json")}, 2, "", "--batch"},
		{"uncached hub id offline", "", []string{"tokenize", "--tokenizer", "google/gemma-3-4b-it", "x"}, 1, "", "HF_HUB_OFFLINE is set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := tkRun(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if out != tc.out {
				t.Errorf("stdout = %q, want %q", out, tc.out)
			}
			if !strings.Contains(errOut, tc.inErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tc.inErr)
			}
			if strings.Count(errOut, "\n") > 1 {
				t.Errorf("error is not one line: %q", errOut)
			}
		})
	}
}
