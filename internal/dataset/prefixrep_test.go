package dataset

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/numpyrand"
)

func TestPrefixRepetitionStructure(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	cfg := Config{Name: PrefixRepetition, NumPrompts: 23, Seed: 1, PrefixRepetitionPrefixLen: 40,
		PrefixRepetitionSuffixLen: 24, PrefixRepetitionNumPrefixes: 5, PrefixRepetitionOutputLen: 16}
	reqs, warns, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 20 {
		t.Fatalf("%d requests, want 5 prefixes × 4", len(reqs))
	}
	if !strings.Contains(strings.Join(warns, "|"), "23 prompts requested, 20 generated") {
		t.Errorf("warnings %v", warns)
	}
	perPrefix := map[int][]Request{}
	for _, r := range reqs {
		if r.PromptLen != 64 || r.OutputLen != 16 {
			t.Errorf("prompt_len %d output_len %d", r.PromptLen, r.OutputLen)
		}
		perPrefix[r.PrefixID] = append(perPrefix[r.PrefixID], r)
	}
	if len(perPrefix) != 5 {
		t.Fatalf("%d prefix groups", len(perPrefix))
	}
	for id, group := range perPrefix {
		if len(group) != 4 {
			t.Errorf("prefix %d has %d prompts", id, len(group))
		}
		// Prompts of one group share a long common text prefix; prompts of
		// different groups do not.
		if n := commonPrefix(group[0].Prompt, group[1].Prompt); n < 40 {
			t.Errorf("prefix %d: prompts share only %d bytes", id, n)
		}
	}
	if n := commonPrefix(perPrefix[0][0].Prompt, perPrefix[1][0].Prompt); n > 10 {
		t.Errorf("different prefixes share %d bytes", n)
	}
	// Shuffled: groups are interleaved, not in blocks.
	if reqs[0].PrefixID == reqs[1].PrefixID && reqs[1].PrefixID == reqs[2].PrefixID && reqs[2].PrefixID == reqs[3].PrefixID {
		t.Error("requests do not look shuffled")
	}
}

// TestPrefixRepetitionDrawsLikeNumPyLegacy: the first prefix is built from
// np.random.seed(seed); np.random.randint(0, vocab, prefix_len), the
// legacy-RNG draws checked against NumPy in numpyrand.
func TestPrefixRepetitionDrawsLikeNumPyLegacy(t *testing.T) {
	t.Parallel()
	tok := idTok{vocab: 5000}
	cfg := Config{Name: PrefixRepetition, NumPrompts: 4, Seed: 42, PrefixRepetitionPrefixLen: 8,
		PrefixRepetitionSuffixLen: 3, PrefixRepetitionNumPrefixes: 2, DisableShuffle: true}
	reqs, _, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := numpyrand.NewRandomState(42)
	prefix, _ := rs.Randint(0, 5000, 8)
	suffix, _ := rs.Randint(0, 5000, 3)
	want := ""
	for _, v := range append(prefix, suffix...) {
		want += fmt.Sprintf("[%d]", v)
	}
	if reqs[0].Prompt != want {
		t.Errorf("first prompt %q, want %q", reqs[0].Prompt, want)
	}
}

func TestPrefixRepetitionZipf(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	cfg := Config{Name: PrefixRepetition, NumPrompts: 400, Seed: 3, PrefixRepetitionPrefixLen: 8,
		PrefixRepetitionSuffixLen: 4, PrefixRepetitionNumPrefixes: 4, PrefixRepetitionZipf: 1.2}
	reqs, _, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 400 {
		t.Fatalf("%d requests", len(reqs))
	}
	counts := make([]int, 4)
	for _, r := range reqs {
		counts[r.PrefixID]++
	}
	// Expected shares ∝ 1, 2^-1.2, 3^-1.2, 4^-1.2 ≈ 0.52, 0.23, 0.14, 0.10.
	if !(counts[0] > counts[1] && counts[1] > counts[3]) || counts[0] < 160 || counts[0] > 260 {
		t.Errorf("zipf counts %v", counts)
	}
	again, _, _ := Load(t.Context(), cfg, tok)
	if !cmp.Equal(reqs, again) {
		t.Error("same seed, different requests")
	}
	_, _, err = Load(t.Context(), Config{Name: PrefixRepetition, NumPrompts: 3}, tok)
	if err == nil || !strings.Contains(err.Error(), "greater than or equal") {
		t.Errorf("too few prompts: %v", err)
	}
	_, _, err = Load(t.Context(), Config{Name: PrefixRepetition, NumPrompts: 30}, nil)
	if err == nil || !strings.Contains(err.Error(), "needs a tokenizer") {
		t.Errorf("no tokenizer: %v", err)
	}
}

func TestZipfPicker(t *testing.T) {
	t.Parallel()
	pick := zipfPicker(3, 1, 9)
	counts := make([]int, 3)
	for range 110000 {
		counts[pick()]++
	}
	// Probabilities 6/11, 3/11, 2/11.
	for k, want := range []int{60000, 30000, 20000} {
		if d := counts[k] - want; d < -1500 || d > 1500 {
			t.Errorf("k=%d: %d draws, want about %d", k, counts[k], want)
		}
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestSharedPrefixes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c    Config
		want bool
	}{
		{Config{Name: PrefixRepetition}, true},
		{Config{Name: Sonnet}, true},
		{Config{Name: Random, RandomPrefixLen: 16}, true},
		{Config{Name: Random}, false},
		{Config{Name: ShareGPT, RandomPrefixLen: 16}, false},
		{Config{Name: Custom}, false},
	} {
		if got := tt.c.SharedPrefixes(); got != tt.want {
			t.Errorf("%s (prefix %d): %v, want %v", tt.c.Name, tt.c.RandomPrefixLen, got, tt.want)
		}
	}
}
