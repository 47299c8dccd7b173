package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadConversations(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, text string) string {
		p := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := Config{Name: Custom, NumPrompts: 2, CustomOutputLen: 8, DisableShuffle: true}
	cfg.Path = write(t, `{"turns": ["hi there", {"prompt": "more", "output_tokens": 3}]}`+"\n"+`{"turns": ["solo"]}`+"\n"+`{"turns": ["extra"]}`+"\n")
	convs, _, err := LoadConversations(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || len(convs[0].Turns) != 2 || convs[0].Turns[1].OutputLen != 3 || convs[0].Turns[0].OutputLen != 8 ||
		convs[1].Turns[0].Prompt != "solo" || convs[1].Line != 2 {
		t.Errorf("%+v", convs)
	}
	bad := []struct{ name, text, want string }{
		{"no turns", `{"prompt": "x"}`, `c.jsonl:1: no "turns" list`},
		{"empty turns", `{"turns": []}`, `c.jsonl:1: "turns" must be a non-empty list`},
		{"bad turn", `{"turns": [3]}`, `c.jsonl:1: turns[0]: want a string`},
		{"bad length", `{"turns": [{"prompt": "x", "output_tokens": -2}]}`, "invalid output_tokens -2"},
	}
	for _, b := range bad {
		c := cfg
		c.Path = write(t, b.text+"\n")
		if _, _, err := LoadConversations(t.Context(), c, nil); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err %v, want %q", b.name, err, b.want)
		}
	}
	c := cfg
	c.Name = Random
	if _, _, err := LoadConversations(t.Context(), c, nil); err == nil || !strings.Contains(err.Error(), "not random") {
		t.Errorf("random: %v", err)
	}
}
