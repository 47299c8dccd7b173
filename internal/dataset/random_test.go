package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/numpyrand"
)

// randomCase mirrors one "random_cases" entry of numpy_vectors.json: what
// NumPy's default_rng(seed) gives for vLLM's random-dataset draws.
type randomCase struct {
	Seed       int64     `json:"seed"`
	N          int       `json:"num_requests"`
	InputLen   int       `json:"input_len"`
	OutputLen  int       `json:"output_len"`
	RRIn       float64   `json:"range_ratio_input"`
	RROut      float64   `json:"range_ratio_output"`
	NumSpecial int       `json:"num_special"`
	Vocab      int       `json:"vocab_size"`
	NumAllowed int       `json:"num_allowed"`
	PrefixLen  int       `json:"prefix_len"`
	InputLow   int       `json:"input_low"`
	InputHigh  int       `json:"input_high"`
	OutputLow  int       `json:"output_low"`
	OutputHigh int       `json:"output_high"`
	InputLens  []int64   `json:"input_lens"`
	OutputLens []int64   `json:"output_lens"`
	Offsets    []int64   `json:"offsets"`
	PrefixIdx  []int64   `json:"prefix_indices"`
	Pads       []int     `json:"pads"`
	PadDraws   [][]int64 `json:"pad_draws"`
}

func loadRandomCases(t *testing.T) []randomCase {
	t.Helper()
	b, err := os.ReadFile(repoTestdata("dataset", "numpy_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []randomCase `json:"random_cases"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no random_cases in golden file")
	}
	return v.Cases
}

// TestRandomDrawsMatchNumPy checks vLLM's interval arithmetic and the draw
// sequence (input lengths, output lengths, offsets, prefix, padding) against
// NumPy for seeds 0, 1, 42 and range ratios 0, 0.5 and {0.25, 0.9}.
func TestRandomDrawsMatchNumPy(t *testing.T) {
	t.Parallel()
	for _, c := range loadRandomCases(t) {
		name := fmt.Sprintf("seed%d/vocab%d/rr%g-%g/n%d", c.Seed, c.Vocab, c.RRIn, c.RROut, c.N)
		b := samplingBounds(c.InputLen, c.OutputLen, RangeRatio{c.RRIn, c.RROut}, c.NumSpecial)
		want := lengthBounds{c.InputLow, c.InputHigh, c.OutputLow, c.OutputHigh}
		if b != want {
			t.Errorf("%s: bounds %+v, NumPy/vLLM %+v", name, b, want)
			continue
		}
		g, err := numpyrand.DefaultRNG(c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		in, out, off, err := drawLengths(g, c.N, b, c.Vocab)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(in, c.InputLens) || !cmp.Equal(out, c.OutputLens) || !cmp.Equal(off, c.Offsets) {
			t.Errorf("%s: draws differ:\ninput %s\noutput %s\noffsets %s", name,
				cmp.Diff(c.InputLens, in), cmp.Diff(c.OutputLens, out), cmp.Diff(c.Offsets, off))
			continue
		}
		if c.PrefixLen > 0 {
			p, _ := g.Integers(0, int64(c.NumAllowed), c.PrefixLen)
			if !cmp.Equal(p, c.PrefixIdx) {
				t.Errorf("%s: prefix draws differ: %s", name, cmp.Diff(c.PrefixIdx, p))
			}
		}
		for k, size := range c.Pads {
			p, _ := g.Integers(0, int64(c.Vocab), size)
			if !cmp.Equal(p, c.PadDraws[k]) {
				t.Errorf("%s: pad draw %d differs: %s", name, k, cmp.Diff(c.PadDraws[k], p))
			}
		}
	}
}

// TestRandomLoadMatchesNumPy runs the whole sampler (Load) with an exact
// tokenizer shaped like GPT-2 or Mistral-7B and checks every request against
// the NumPy vectors: prompt length, output length, and the consecutive-id
// body starting at allowed[(offset+i) mod len(allowed)] after the prefix.
func TestRandomLoadMatchesNumPy(t *testing.T) {
	t.Parallel()
	shapes := map[int]idTok{
		50257: {vocab: 50257, special: []int{50256}},
		32000: {vocab: 32000, special: []int{0, 1, 2}, bos: true},
	}
	checked := 0
	for _, c := range loadRandomCases(t) {
		tok, ok := shapes[c.Vocab]
		if !ok {
			continue
		}
		rr := fmt.Sprintf("%g", c.RRIn)
		if c.RRIn != c.RROut {
			rr = fmt.Sprintf(`{"input": %g, "output": %g}`, c.RRIn, c.RROut)
		}
		cfg := Config{Name: Random, Seed: c.Seed, NumPrompts: c.N, RandomInputLen: c.InputLen,
			RandomOutputLen: c.OutputLen, RandomRangeRatio: rr, RandomPrefixLen: c.PrefixLen}
		reqs, warns, err := Load(t.Context(), cfg, tok)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if len(warns) != 0 {
			t.Errorf("unexpected warnings %v", warns)
		}
		allowed := allowedTokens(tok.vocab, tok.special)
		if len(allowed) != c.NumAllowed {
			t.Fatalf("allowed tokens %d, want %d", len(allowed), c.NumAllowed)
		}
		for i, r := range reqs {
			ids := tok.Encode(r.Prompt, false)
			if r.PromptLen != c.PrefixLen+int(c.InputLens[i]) || len(ids) != r.PromptLen {
				t.Fatalf("seed %d req %d: prompt_len %d (%d ids), want %d", c.Seed, i, r.PromptLen, len(ids), c.PrefixLen+int(c.InputLens[i]))
			}
			if r.OutputLen != int(c.OutputLens[i]) {
				t.Fatalf("seed %d req %d: output_len %d, want %d", c.Seed, i, r.OutputLen, c.OutputLens[i])
			}
			for k := range c.PrefixLen {
				if ids[k] != allowed[c.PrefixIdx[k]] {
					t.Fatalf("seed %d req %d: prefix token %d is %d, want %d", c.Seed, i, k, ids[k], allowed[c.PrefixIdx[k]])
				}
			}
			if c.InputLens[i] > 0 {
				if got, want := ids[c.PrefixLen], allowed[(int(c.Offsets[i])+i)%len(allowed)]; got != want {
					t.Fatalf("seed %d req %d: first body token %d, want %d", c.Seed, i, got, want)
				}
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no cases checked")
	}
}

// TestRandomRealTokenizersExactLength is the acceptance check: with the
// GPT-2 and Mistral-7B tokenizers and range ratio 0, every prompt re-encodes
// to exactly its target length, and the same seed gives the same prompts.
func TestRandomRealTokenizersExactLength(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"gpt2", "mistral7b"} {
		tok := realTokenizer(t, name)
		for _, seed := range []int64{0, 1, 42} {
			for _, shape := range []struct{ in, prefix, n int }{{256, 0, 40}, {1024, 0, 8}, {128, 32, 20}} {
				t.Run(fmt.Sprintf("%s/seed%d/in%d/prefix%d", name, seed, shape.in, shape.prefix), func(t *testing.T) {
					t.Parallel()
					cfg := Config{Name: Random, Seed: seed, NumPrompts: shape.n, RandomInputLen: shape.in, RandomOutputLen: 64, RandomPrefixLen: shape.prefix}
					reqs, warns, err := Load(t.Context(), cfg, tok)
					if err != nil {
						t.Fatal(err)
					}
					if len(warns) != 0 {
						t.Errorf("warnings: %v", warns)
					}
					target := shape.prefix + shape.in - tok.NumSpecialTokensToAdd()
					for i, r := range reqs {
						if got := len(tok.Encode(r.Prompt, false)); got != target || r.PromptLen != target {
							t.Errorf("prompt %d re-encodes to %d tokens (prompt_len %d), want %d", i, got, r.PromptLen, target)
						}
						if r.OutputLen != 64 {
							t.Errorf("prompt %d output_len %d", i, r.OutputLen)
						}
					}
					again, _, err := Load(t.Context(), cfg, tok)
					if err != nil {
						t.Fatal(err)
					}
					if !cmp.Equal(reqs, again) {
						t.Error("same seed gave different prompts on a second run")
					}
					if shape.prefix > 0 && len(reqs) > 1 {
						// The shared prefix is the same text in every prompt.
						p0 := tok.Decode(tok.Encode(reqs[0].Prompt, false)[:shape.prefix])
						for i, r := range reqs[1:] {
							if !strings.HasPrefix(r.Prompt, p0[:len(p0)/2]) {
								t.Errorf("prompt %d does not start with the shared prefix", i+1)
							}
						}
					}
				})
			}
		}
	}
}

// TestRandomSeedsDiffer guards against a sampler that ignores the seed.
func TestRandomSeedsDiffer(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	a, _, err := Load(t.Context(), Config{Seed: 0, NumPrompts: 3, RandomInputLen: 32}, tok)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Load(t.Context(), Config{Seed: 1, NumPrompts: 3, RandomInputLen: 32}, tok)
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Prompt == b[0].Prompt {
		t.Error("seeds 0 and 1 gave the same first prompt")
	}
}

func TestRandomWithoutTokenizer(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 42, NumPrompts: 5, RandomInputLen: 20, RandomOutputLen: 7, RandomRangeRatio: "0.5"}
	reqs, warns, err := Load(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "approximate") {
		t.Errorf("want one 'approximate' warning, got %v", warns)
	}
	// Same NumPy draws as with a 0-special tokenizer of len(words) ids.
	g, _ := numpyrand.DefaultRNG(42)
	in, out, _, _ := drawLengths(g, 5, samplingBounds(20, 7, RangeRatio{0.5, 0.5}, 0), len(fallbackWords))
	for i, r := range reqs {
		if n := len(strings.Fields(r.Prompt)); n != int(in[i]) || r.PromptLen != n {
			t.Errorf("request %d: %d words, prompt_len %d, want %d", i, n, r.PromptLen, in[i])
		}
		if r.OutputLen != int(out[i]) {
			t.Errorf("request %d: output_len %d, want %d", i, r.OutputLen, out[i])
		}
	}
}

func TestRandomErrors(t *testing.T) {
	t.Parallel()
	tok := idTok{vocab: 100, special: []int{0}, bos: true}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"input too small after the BOS", Config{RandomInputLen: 1}, "--random-input-len is too small"},
		{"path refused", Config{Path: "x.json"}, "--dataset-path is not allowed"},
		{"range ratio 1", Config{RandomRangeRatio: "1"}, "[0, 1)"},
		{"range ratio dict without output", Config{RandomRangeRatio: `{"input": 0.1}`}, "'input' and 'output'"},
		{"range ratio garbage", Config{RandomRangeRatio: "wide"}, "neither a number"},
		{"negative seed", Config{Seed: -1}, "non-negative"},
		{"absurd input length", Config{RandomInputLen: 5_000_000}, "typo"},
		{"unknown dataset", Config{Name: "speed_bench"}, "unknown --dataset-name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Load(t.Context(), tc.cfg, tok)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
