package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// byteTok counts one token per byte plus a BOS, like a byte-level
// tokenizer: the stand-in the sonnet vectors below were computed with.
var byteTok = idTok{vocab: 256, special: []int{0}, bos: true}

func TestSonnetMatchesVLLMSampler(t *testing.T) {
	t.Parallel()
	// Expected lengths and prompt hashes: vLLM's SonnetDataset.sample
	// logic run in CPython 3 (random.seed(seed), random.choices, round())
	// over the built-in sonnet.txt, with tokens = UTF-8 bytes + 1 BOS and
	// no chat template.
	type want struct {
		lens   []int
		hashes []string
	}
	for _, tc := range []struct {
		name                string
		in, prefix, n, seed int
		want                want
	}{
		{"defaults", 0, 0, 4, 0, want{[]int{546, 542, 515, 523}, []string{"2117bd992c548100", "4efce109a96135fe", "08f8214eb77462c8", "271ec7a44c45ab25"}}},
		{"longer, seed 42", 1200, 300, 3, 42, want{[]int{1189, 1148, 1194}, []string{"eaa3b01df6c2012e", "8b2b89fd763d434e", "4a49ae52cb52a07f"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Name: Sonnet, Path: BuiltinSonnet, NumPrompts: tc.n, Seed: int64(tc.seed), SonnetInputLen: tc.in, SonnetPrefixLen: tc.prefix}
			reqs, warns, err := Load(t.Context(), cfg, byteTok)
			if err != nil {
				t.Fatal(err)
			}
			var got want
			for _, r := range reqs {
				sum := sha256.Sum256([]byte(r.Prompt))
				got.lens = append(got.lens, r.PromptLen)
				got.hashes = append(got.hashes, hex.EncodeToString(sum[:])[:16])
				if r.OutputLen != 150 || !strings.HasPrefix(r.Prompt, sonnetBasePrompt+"FROM fairest creatures") {
					t.Errorf("output %d, prompt %.80q", r.OutputLen, r.Prompt)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "no chat template") }) {
				t.Errorf("warnings %q lack the chat-template difference", warns)
			}
		})
	}
}

func TestSonnetFileAndErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A CRLF file reads like its LF twin (Python's text mode).
	lf := "one line of verse\nanother line here\na third to choose\n"
	a := writeFile(t, dir, "lf.txt", lf)
	b := writeFile(t, dir, "crlf.txt", strings.ReplaceAll(lf, "\n", "\r\n"))
	cfg := Config{Name: Sonnet, NumPrompts: 5, SonnetInputLen: 150, SonnetPrefixLen: 80, SonnetOutputLen: 9}
	cfg.Path = a
	ra, _, err := Load(t.Context(), cfg, byteTok)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Path = b
	rb, _, err := Load(t.Context(), cfg, byteTok)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ra, rb); diff != "" {
		t.Errorf("CRLF file differs (-lf +crlf):\n%s", diff)
	}
	for _, r := range ra {
		if r.PromptLen > 150 || r.OutputLen != 9 || !strings.HasPrefix(r.Prompt, sonnetBasePrompt+"one line of verse\n") {
			t.Errorf("request %+v", r)
		}
	}
	// --output-len overrides --sonnet-output-len, --input-len the input.
	cfg.OutputLen, cfg.InputLen = 3, 100
	rc, _, err := Load(t.Context(), cfg, byteTok)
	if err != nil || rc[0].OutputLen != 3 || rc[0].PromptLen > 100 {
		t.Errorf("overrides: %+v, %v", rc[0], err)
	}

	cfg = Config{Name: Sonnet, Path: BuiltinSonnet, SonnetInputLen: 20}
	_, _, err = Load(t.Context(), cfg, byteTok)
	wantErr(t, err, "--sonnet-input-len (20) must be higher than the base prompt length (54)")
	// No draw can fit: vLLM loops forever, llmbench stops.
	cfg = Config{Name: Sonnet, Path: BuiltinSonnet, SonnetInputLen: 60, SonnetPrefixLen: 1, NumPrompts: 1}
	_, _, err = Load(t.Context(), cfg, byteTok)
	wantErr(t, err, "fits --sonnet-input-len 60")
	_, _, err = Load(t.Context(), Config{Name: Sonnet}, byteTok)
	wantErr(t, err, "--dataset-name sonnet needs --dataset-path")
	// Without a tokenizer the lengths are estimates, with a warning.
	reqs, warns, err := Load(t.Context(), Config{Name: Sonnet, Path: BuiltinSonnet, NumPrompts: 2}, nil)
	if err != nil || len(reqs) != 2 || !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "without a tokenizer") }) {
		t.Errorf("no tokenizer: %d requests, %q, %v", len(reqs), warns, err)
	}
}
