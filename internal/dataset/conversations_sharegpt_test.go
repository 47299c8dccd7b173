package dataset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// multiTurnShareGPT is a ShareGPT file with one edge case per line (entry
// i on line i+2).
var multiTurnShareGPT = repoTestdata("dataset", "sharegpt_multiturn.json")

// sgWant is what one entry of multiTurnShareGPT becomes: its user messages
// and the answer each is counted from ("" = unanswered: sent only with
// --sharegpt-output-len).
type sgWant struct {
	why     string
	prompts []string
	answers []string
	noList  bool // no "conversations" list: not an entry at all
}

var sgWants = []sgWant{
	{why: "human/gpt alternate: two turns", prompts: []string{"Hi there", "More?"}, answers: []string{"Hello!", "Sure."}},
	{why: "a leading system turn is not sent", prompts: []string{"Q1"}, answers: []string{"A1"}},
	{why: "a leading gpt turn answers nothing sent", prompts: []string{"Q"}, answers: []string{"Ans"}},
	{why: "two human turns in a row are one message", prompts: []string{"part one\n\npart two"}, answers: []string{"both"}},
	{why: "the last question has no answer", prompts: []string{"Q", "dangling"}, answers: []string{"A", ""}},
	{why: "empty values are absent: the answers around an empty question merge", prompts: []string{"Q", "Q3"}, answers: []string{"A1\n\nA2", "A3"}},
	{why: "answers only: nothing to send"},
	{why: "a lone question: only with a fixed length", prompts: []string{"alone"}, answers: []string{""}},
	{why: "an empty question and its answer: nothing to send"},
	{why: "no conversations list: left out before the walk", noList: true},
	{why: "OpenAI role names are read too", prompts: []string{"Hey"}, answers: []string{"Yo"}},
	{why: "two answers in a row (any non-user role) are one", prompts: []string{"Q"}, answers: []string{"A\n\nB"}},
	{why: "a system turn anywhere is not sent (nor counted in an answer)", prompts: []string{"Q"}, answers: []string{"A"}},
}

// TestLoadShareGPTConversations loads multiTurnShareGPT in file order with
// and without --sharegpt-output-len and checks every entry's turns, their
// token counts (prompt alone; answer with the tokenizer's special tokens,
// as the single-turn loader counts a completion) and the skip warning.
func TestLoadShareGPTConversations(t *testing.T) {
	t.Parallel()
	tok := idTok{vocab: 1000, special: []int{1}, bos: true} // one token per byte, +1 special
	for _, fixed := range []int{0, 7} {
		t.Run(fmt.Sprintf("sharegpt-output-len=%d", fixed), func(t *testing.T) {
			t.Parallel()
			cfg := Config{Name: ShareGPT, Path: multiTurnShareGPT, NumPrompts: 100, DisableShuffle: true, SharegptOutputLen: fixed}
			convs, warns, err := LoadConversations(t.Context(), cfg, tok)
			if err != nil {
				t.Fatal(err)
			}
			byLine := map[int]Conversation{}
			for _, c := range convs {
				byLine[c.Line] = c
			}
			skipped := 0
			for i, w := range sgWants {
				var want []Turn
				for k, p := range w.prompts {
					out := fixed
					if fixed == 0 {
						if w.answers[k] == "" {
							continue
						}
						out = len(w.answers[k]) + 1
					}
					want = append(want, Turn{Prompt: p, PromptLen: len(p), OutputLen: out})
				}
				if len(want) == 0 && !w.noList {
					skipped++
				}
				if got := byLine[i+2].Turns; !slices.Equal(got, want) {
					t.Errorf("line %d (%s): turns %+v, want %+v", i+2, w.why, got, want)
				}
			}
			if len(convs) != len(byLine) {
				t.Errorf("%d conversations on %d lines", len(convs), len(byLine))
			}
			if want := fmt.Sprintf("%d conversation(s) skipped", skipped); !slices.ContainsFunc(warns, func(s string) bool { return strings.Contains(s, want) }) {
				t.Errorf("warnings %q do not say %q", warns, want)
			}
		})
	}
}

// TestLoadShareGPTConversationsSample: --num-prompts counts conversations,
// the shuffle follows --seed (and only picks, never rewrites, entries), and
// --disable-shuffle keeps the file order.
func TestLoadShareGPTConversationsSample(t *testing.T) {
	t.Parallel()
	load := func(n int, seed int64, noShuffle bool) []Conversation {
		cfg := Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: n, Seed: seed, DisableShuffle: noShuffle}
		convs, _, err := LoadConversations(t.Context(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return convs
	}
	lines := func(cs []Conversation) []int {
		var l []int
		for _, c := range cs {
			l = append(l, c.Line)
		}
		return l
	}
	all := load(1000, 0, true)
	if !slices.IsSorted(lines(all)) || len(all) < 4 {
		t.Fatalf("--disable-shuffle: lines %v, want file order", lines(all))
	}
	s0, s1 := load(1000, 0, false), load(1000, 1, false)
	if len(s0) != len(all) || slices.Equal(lines(s0), lines(all)) || slices.Equal(lines(s0), lines(s1)) {
		t.Errorf("shuffled lines %v (seed 0), %v (seed 1), file order %v", lines(s0), lines(s1), lines(all))
	}
	sorted := slices.Clone(s0)
	slices.SortFunc(sorted, func(a, b Conversation) int { return a.Line - b.Line })
	for i := range sorted {
		if !slices.Equal(sorted[i].Turns, all[i].Turns) {
			t.Errorf("line %d: shuffled turns differ from file order", sorted[i].Line)
		}
	}
	if got := load(3, 0, false); !slices.Equal(lines(got), lines(s0)[:3]) {
		t.Errorf("--num-prompts 3: lines %v, want the first 3 of %v", lines(got), lines(s0))
	}
}

// TestLoadShareGPTConversationsErrors: malformed turns name the file and
// the entry's line; nothing usable is an error, not an empty run.
func TestLoadShareGPTConversationsErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ why, file, want string }{
		{"a turn without a value", "[\n{\"conversations\": [{\"from\": \"human\"}]}\n]", "f.json:2: entry 0: conversations[0] has no string"},
		{"a turn that is not an object", "[\n\n{\"conversations\": [3]}]", "f.json:3: entry 0: conversations: want a list"},
		{"no usable conversation", `[{"conversations": [{"from": "gpt", "value": "x"}]}]`, "no usable conversations among 1 entries"},
		{"not ShareGPT at all", `{"turns": ["hi"]}`, "not a ShareGPT JSON file"},
	}
	for _, c := range cases {
		path := writeFile(t, dir, c.why+"/f.json", c.file)
		_, _, err := LoadConversations(t.Context(), Config{Name: ShareGPT, Path: path, NumPrompts: 5}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.why, err, c.want)
		}
	}
}
