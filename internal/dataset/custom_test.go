package dataset

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/pyrand"
)

var sampleCustomPath = repoTestdata("dataset", "custom_sample.jsonl")

func TestCustomOutputLengths(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "mistral7b")
	for _, tc := range []struct {
		name      string
		outputLen int
		want      []int // in file order (shuffle disabled)
	}{
		{"default 256", 0, []int{256, 256, 256, 256, 256, 256}},
		{"fixed", 33, []int{33, 33, 33, 33, 33, 33}},
		{"from the file", -1, []int{60, 45, 90, 12, 8, 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Name: Custom, Path: sampleCustomPath, NumPrompts: -1, CustomOutputLen: tc.outputLen, DisableShuffle: true, SkipChatTemplate: true}
			reqs, warns, err := Load(t.Context(), cfg, tok)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) != 0 {
				t.Errorf("warnings %v", warns)
			}
			got := make([]int, len(reqs))
			for i, r := range reqs {
				got[i] = r.OutputLen
				if want := len(tok.Encode(r.Prompt, true)); r.PromptLen != want {
					t.Errorf("row %d prompt_len %d, want %d (with BOS)", i, r.PromptLen, want)
				}
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("output lens %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCustomChatTemplateAndMessages(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	cfg := Config{Name: Custom, Path: sampleCustomPath, NumPrompts: -1, DisableShuffle: true}
	reqs, warns, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "chat template") {
		t.Errorf("want one chat-template warning, got %v", warns)
	}
	first := reqs[0]
	want := []map[string]any{{"role": "user", "content": first.Prompt}}
	if !cmp.Equal(first.Messages, want) {
		t.Errorf("templated row messages %v, want %v", first.Messages, want)
	}
	chat := reqs[3]
	if len(chat.Messages) != 2 || chat.Messages[0]["role"] != "system" {
		t.Errorf("messages row: %v", chat.Messages)
	}
	if chat.Prompt != "You answer in one short sentence.\nWhat colour is a ripe lime?" {
		t.Errorf("messages row prompt %q", chat.Prompt)
	}
	// --skip-chat-template: plain prompts carry no messages; prebuilt
	// conversations are still sent as given.
	cfg.SkipChatTemplate = true
	reqs, _, err = Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].Messages != nil || reqs[3].Messages == nil {
		t.Errorf("skip-chat-template: messages %v / %v", reqs[0].Messages, reqs[3].Messages)
	}
}

func TestCustomShuffleAndOversample(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	plain, _, err := Load(t.Context(), Config{Name: Custom, Path: sampleCustomPath, NumPrompts: -1, DisableShuffle: true, SkipChatTemplate: true}, tok)
	if err != nil {
		t.Fatal(err)
	}
	// Python's random.seed(7); random.shuffle(rows) order (pyrand is
	// checked against CPython separately).
	order := []int{0, 1, 2, 3, 4, 5}
	pyrand.New(7).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	reqs, _, err := Load(t.Context(), Config{Name: Custom, Path: sampleCustomPath, NumPrompts: 10, Seed: 7, SkipChatTemplate: true}, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 10 {
		t.Fatalf("%d requests, want 10 (oversampled)", len(reqs))
	}
	for i, idx := range order {
		if reqs[i].Prompt != plain[idx].Prompt {
			t.Errorf("position %d: %.30q, want row %d %.30q", i, reqs[i].Prompt, idx, plain[idx].Prompt)
		}
	}
}

func TestCustomBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tok := idTok{vocab: 300}
	for _, tc := range []struct {
		name, content string
		outLen        int
		want          []string
	}{
		{"not json", "{\"prompt\": \"a\"}\nnot json at all\n", 0, []string{"c.jsonl:2", "not a JSON object"}},
		{"json array", "[{\"prompt\": \"a\"}]\n", 0, []string{"c.jsonl:1", "JSON array"}},
		{"no prompt", "{\"prompt\": \"a\"}\n{\"text\": \"b\"}\n", 0, []string{"c.jsonl:2", "no \"prompt\""}},
		{"prompt not a string", "{\"prompt\": 5}\n", 0, []string{"c.jsonl:1", "must be a string"}},
		{"missing output_tokens", "{\"prompt\": \"a\", \"output_tokens\": 3}\n{\"prompt\": \"b\"}\n", -1, []string{"c.jsonl:2", "output_tokens", "-1"}},
		{"bad output_tokens", "{\"prompt\": \"a\", \"output_tokens\": \"many\"}\n", -1, []string{"c.jsonl:1", "invalid \"output_tokens\""}},
		{"bad messages", "{\"messages\": [{\"content\": \"x\"}]}\n", 0, []string{"c.jsonl:1", "role"}},
		{"empty", "\n\n", 0, []string{"c.jsonl", "no rows"}},
		{"too few without oversampling", "{\"prompt\": \"a\"}\n", 0, []string{"c.jsonl", "--no-oversample"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "c.jsonl", tc.content)
			cfg := Config{Name: Custom, Path: p, NumPrompts: 3, CustomOutputLen: tc.outLen, DisableShuffle: true, NoOversample: true}
			_, _, err := Load(t.Context(), cfg, tok)
			wantErr(t, err, tc.want...)
		})
	}
	_, _, err := Load(t.Context(), Config{Name: Custom, Path: dir + "/nope.jsonl"}, tok)
	if err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}
