package dataset

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/tokenizer/tokenizertest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/dataset")

// repoTestdata is the repository's shared testdata folder.
func repoTestdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "testdata"}, parts...)...)
}

// wantErr fails the test unless err is an error that mentions every one of
// want.
func wantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// realTokenizer loads one of the committed tokenizers (gpt2, mistral7b).
func realTokenizer(tb testing.TB, name string) Tokenizer {
	tb.Helper()
	return tokenizertest.Load(tb, name)
}

// idTok is an exact test tokenizer: id n decodes to "[n]" and "[n]" encodes
// back to n, so decode/re-encode never changes a sequence and the sampler's
// draws can be checked one for one. Any other byte encodes to its value.
type idTok struct {
	vocab   int
	special []int
	bos     bool
}

func (t idTok) Encode(text string, add bool) []int {
	var out []int
	if add && t.bos {
		out = append(out, t.special[0])
	}
	for len(text) > 0 {
		if text[0] == '[' {
			if end := strings.IndexByte(text, ']'); end > 0 {
				if n, err := strconv.Atoi(text[1:end]); err == nil {
					out = append(out, n)
					text = text[end+1:]
					continue
				}
			}
		}
		out = append(out, int(text[0])%t.vocab)
		text = text[1:]
	}
	return out
}

func (t idTok) Decode(ids []int) string {
	var b bytes.Buffer
	for _, id := range ids {
		fmt.Fprintf(&b, "[%d]", id)
	}
	return b.String()
}
func (t idTok) VocabSize() int    { return t.vocab }
func (t idTok) SpecialIDs() []int { return t.special }
func (t idTok) NumSpecialTokensToAdd() int {
	if t.bos {
		return 1
	}
	return 0
}
func (t idTok) CountTokens(s string) int { return len(t.Encode(s, false)) }
func (t idTok) ID() string               { return "idtok" }

// writeFile writes content under dir and returns its path.
func writeFile(tb testing.TB, dir, name, content string) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
