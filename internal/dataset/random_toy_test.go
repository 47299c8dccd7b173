package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// toyTok is the lossy toy tokenizer of scripts/dataset/gen_random_toy_vectors.py:
// ids 0-25 are single letters, 26-285 two-letter pieces whose first letter is
// a-j; encoding is greedy, so a decode/re-encode round trip merges letters.
type toyTok struct{}

const toyLetters = "abcdefghijklmnopqrstuvwxyz"

var toyPieces = func() []string {
	p := make([]string, 0, 286)
	for _, c := range toyLetters {
		p = append(p, string(c))
	}
	for i := range 10 {
		for j := range 26 {
			p = append(p, string(toyLetters[i])+string(toyLetters[j]))
		}
	}
	return p
}()

var toyIndex = func() map[string]int {
	m := map[string]int{}
	for i, p := range toyPieces {
		m[p] = i
	}
	return m
}()

func (toyTok) Encode(text string, add bool) []int {
	var out []int
	if add {
		out = append(out, 0)
	}
	for i := 0; i < len(text); {
		if i+2 <= len(text) {
			if id, ok := toyIndex[text[i:i+2]]; ok {
				out = append(out, id)
				i += 2
				continue
			}
		}
		out = append(out, toyIndex[text[i:i+1]])
		i++
	}
	return out
}

func (toyTok) Decode(ids []int) string {
	b := make([]byte, 0, 2*len(ids))
	for _, id := range ids {
		b = append(b, toyPieces[id]...)
	}
	return string(b)
}
func (toyTok) VocabSize() int             { return len(toyPieces) }
func (toyTok) SpecialIDs() []int          { return []int{0, 7} }
func (toyTok) NumSpecialTokensToAdd() int { return 1 }
func (t toyTok) CountTokens(s string) int { return len(t.Encode(s, false)) }
func (toyTok) ID() string                 { return "toy" }

// TestRandomPipelineMatchesVLLMAlgorithm compares whole prompts with vLLM's
// sampling algorithm as restated in Python over NumPy: with a lossy
// tokenizer the decode/re-encode loop truncates, pads with random ids and
// hits its retry limit, so the RNG order of every step is checked.
func TestRandomPipelineMatchesVLLMAlgorithm(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(repoTestdata("dataset", "random_toy_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct {
			Seed      int64   `json:"seed"`
			N         int     `json:"num_requests"`
			InputLen  int     `json:"input_len"`
			OutputLen int     `json:"output_len"`
			RRIn      float64 `json:"range_ratio_input"`
			RROut     float64 `json:"range_ratio_output"`
			PrefixLen int     `json:"prefix_len"`
			Requests  []struct {
				Prompt    string `json:"prompt"`
				PromptLen int    `json:"prompt_len"`
				OutputLen int    `json:"output_len"`
				Target    int    `json:"target"`
				Rounds    int    `json:"rounds"`
				PadTokens int    `json:"pad_tokens"`
			} `json:"requests"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no cases")
	}
	pads, maxRounds := 0, 0
	for _, c := range v.Cases {
		cfg := Config{Seed: c.Seed, NumPrompts: c.N, RandomInputLen: c.InputLen, RandomOutputLen: c.OutputLen,
			RandomRangeRatio: fmt.Sprintf(`{"input": %g, "output": %g}`, c.RRIn, c.RROut), RandomPrefixLen: c.PrefixLen}
		reqs, _, err := Load(t.Context(), cfg, toyTok{})
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != len(c.Requests) {
			t.Fatalf("seed %d: %d requests, want %d", c.Seed, len(reqs), len(c.Requests))
		}
		for i, want := range c.Requests {
			got := reqs[i]
			if got.Prompt != want.Prompt || got.PromptLen != want.PromptLen || got.OutputLen != want.OutputLen {
				t.Fatalf("seed %d rr %g/%g prefix %d request %d:\n got %q (%d, %d)\nwant %q (%d, %d)", c.Seed, c.RRIn, c.RROut, c.PrefixLen, i,
					got.Prompt, got.PromptLen, got.OutputLen, want.Prompt, want.PromptLen, want.OutputLen)
			}
			pads += want.PadTokens
			maxRounds = max(maxRounds, want.Rounds)
		}
	}
	// The lossy tokenizer must exercise the loop: truncation, random
	// padding (RNG draws interleaved between requests) and several rounds.
	if pads == 0 || maxRounds < 3 {
		t.Errorf("vectors too easy: %d pad tokens, at most %d rounds", pads, maxRounds)
	}
}

// TestPrefixRepetitionMatchesVLLMAlgorithm compares whole prompts with
// vLLM's PrefixRepetitionRandomDataset restated in Python (NumPy's legacy
// global generator, Python's shuffle) over the lossy toy tokenizer.
func TestPrefixRepetitionMatchesVLLMAlgorithm(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(repoTestdata("dataset", "random_toy_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct {
			Seed        int64 `json:"seed"`
			N           int   `json:"num_requests"`
			PrefixLen   int   `json:"prefix_len"`
			SuffixLen   int   `json:"suffix_len"`
			NumPrefixes int   `json:"num_prefixes"`
			OutputLen   int   `json:"output_len"`
			Requests    []struct {
				Prompt    string `json:"prompt"`
				PromptLen int    `json:"prompt_len"`
				OutputLen int    `json:"output_len"`
			} `json:"requests"`
		} `json:"prefix_repetition"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range v.Cases {
		cfg := Config{Name: PrefixRepetition, Seed: c.Seed, NumPrompts: c.N, PrefixRepetitionPrefixLen: c.PrefixLen,
			PrefixRepetitionSuffixLen: c.SuffixLen, PrefixRepetitionNumPrefixes: c.NumPrefixes, PrefixRepetitionOutputLen: c.OutputLen}
		reqs, _, err := Load(t.Context(), cfg, toyTok{})
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != len(c.Requests) {
			t.Fatalf("seed %d: %d requests, want %d", c.Seed, len(reqs), len(c.Requests))
		}
		for i, want := range c.Requests {
			got := reqs[i]
			if got.Prompt != want.Prompt || got.PromptLen != want.PromptLen || got.OutputLen != want.OutputLen {
				t.Fatalf("seed %d request %d: got %q (%d, %d), want %q (%d, %d)", c.Seed, i,
					got.Prompt, got.PromptLen, got.OutputLen, want.Prompt, want.PromptLen, want.OutputLen)
			}
		}
	}
}
