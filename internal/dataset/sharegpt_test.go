package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/jsonscan"
)

var sampleShareGPTPath = repoTestdata("dataset", "sharegpt_sample.json")

// sampleEntries decodes the shipped sample independently of the loader.
func sampleEntries(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(sampleShareGPTPath)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// pythonOrder is the walk order vLLM uses for the sample (written by
// scripts/dataset/gen_sharegpt_order.py with CPython's random).
func pythonOrder(t *testing.T, seed int64) []int {
	t.Helper()
	b, err := os.ReadFile(repoTestdata("dataset", "sharegpt_sample.order.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]int
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	o, ok := m[fmt.Sprint(seed)]
	if !ok {
		t.Fatalf("no order for seed %d", seed)
	}
	return o
}

type selected struct {
	ID        string `json:"id"`
	PromptLen int    `json:"prompt_len"`
	OutputLen int    `json:"output_len"`
}

// expectedShareGPT applies vLLM's rules as written in its source, directly
// on the decoded sample: walk in Python's shuffled order, count with the
// tokenizer (special tokens added), keep 4 <= prompt <= 1024, output >= 4
// (unless fixed), prompt + output <= 2048, stop at n.
func expectedShareGPT(t *testing.T, tok Tokenizer, seed int64, n, fixedOut int) []selected {
	raw := sampleEntries(t)
	var out []selected
	for _, idx := range pythonOrder(t, seed) {
		if len(out) >= n {
			break
		}
		conv := raw[idx]["conversations"].([]any)
		p := conv[0].(map[string]any)["value"].(string)
		c := conv[1].(map[string]any)["value"].(string)
		pl := len(tok.Encode(p, true))
		ol := len(tok.Encode(c, true))
		if fixedOut > 0 {
			ol = fixedOut
		}
		if pl < 4 || pl > 1024 || pl+ol > 2048 || (fixedOut == 0 && ol < 4) {
			continue
		}
		out = append(out, selected{ID: raw[idx]["id"].(string), PromptLen: pl, OutputLen: ol})
	}
	return out
}

// identify maps loaded requests back to entry ids by prompt text.
func identify(t *testing.T, reqs []Request) []selected {
	byPrompt := map[string]string{}
	for _, e := range sampleEntries(t) {
		if conv, ok := e["conversations"].([]any); ok && len(conv) > 0 {
			byPrompt[conv[0].(map[string]any)["value"].(string)] = e["id"].(string)
		}
	}
	out := make([]selected, len(reqs))
	for i, r := range reqs {
		id, ok := byPrompt[r.Prompt]
		if !ok {
			t.Fatalf("request %d prompt not in the sample: %.40q", i, r.Prompt)
		}
		out[i] = selected{ID: id, PromptLen: r.PromptLen, OutputLen: r.OutputLen}
	}
	return out
}

// TestShareGPTSampleGolden: on the shipped sample the loader selects
// exactly the entries vLLM's rules select, in vLLM's order, and the result
// matches the committed golden file (regenerate with -update).
func TestShareGPTSampleGolden(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	type run struct {
		Seed     int64      `json:"seed"`
		N        int        `json:"num_prompts"`
		FixedOut int        `json:"sharegpt_output_len"`
		Selected []selected `json:"selected"`
	}
	var runs []run
	for _, c := range []struct {
		seed     int64
		n, fixed int
	}{{0, 30, 0}, {1, 30, 0}, {42, 44, 0}, {0, 44, 10}} {
		want := expectedShareGPT(t, tok, c.seed, c.n, c.fixed)
		cfg := Config{Name: ShareGPT, Path: sampleShareGPTPath, Seed: c.seed, NumPrompts: len(want), SharegptOutputLen: c.fixed}
		reqs, warns, err := Load(t.Context(), cfg, tok)
		if err != nil {
			t.Fatal(err)
		}
		if len(warns) != 0 {
			t.Errorf("warnings: %v", warns)
		}
		got := identify(t, reqs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("seed %d n %d fixed %d: selection differs from vLLM's rules:\n%s", c.seed, c.n, c.fixed, diff)
		}
		runs = append(runs, run{c.seed, c.n, c.fixed, got})
	}
	// The rule-breaking entries never appear with computed output lengths.
	for _, r := range runs[:3] {
		for _, s := range r.Selected {
			switch s.ID {
			case "one-turn", "no-conversations", "short-prompt", "short-answer", "long-prompt", "long-total":
				t.Errorf("seed %d selected %s, which the rules drop", r.Seed, s.ID)
			}
		}
	}
	// With a fixed output length the short answer is no longer dropped.
	found := false
	for _, s := range runs[3].Selected {
		found = found || s.ID == "short-answer"
	}
	if !found {
		t.Error("--sharegpt-output-len should keep the entry with a short answer")
	}
	golden := repoTestdata("dataset", "sharegpt_sample.golden.json")
	got, _ := json.MarshalIndent(runs, "", " ")
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("golden file differs (-want +got):\n%s", diff)
	}
}

func TestShareGPTOversample(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	valid := expectedShareGPT(t, tok, 0, 1000, 0)
	reqs, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 100}, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 100 {
		t.Fatalf("got %d requests, want 100", len(reqs))
	}
	got := identify(t, reqs)
	if diff := cmp.Diff(valid, got[:len(valid)]); diff != "" {
		t.Fatalf("first requests are not the valid entries in order:\n%s", diff)
	}
	// Extras are copies of valid entries (random.choice over them).
	seen := map[string]bool{}
	for _, v := range valid {
		seen[v.ID] = true
	}
	distinct := map[string]bool{}
	for _, s := range got[len(valid):] {
		if !seen[s.ID] {
			t.Errorf("oversampled entry %s is not a valid one", s.ID)
		}
		distinct[s.ID] = true
	}
	if len(distinct) < 10 {
		t.Errorf("oversampling picked only %d distinct entries for %d slots", len(distinct), 100-len(valid))
	}

	_, _, err = Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 100, NoOversample: true}, tok)
	if err == nil || !strings.Contains(err.Error(), "sharegpt_sample.json") || !strings.Contains(err.Error(), "--no-oversample") {
		t.Errorf("want an error naming the file and --no-oversample, got %v", err)
	}
}

func TestShareGPTDisableShuffleKeepsFileOrder(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	reqs, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 3, DisableShuffle: true}, tok)
	if err != nil {
		t.Fatal(err)
	}
	got := identify(t, reqs)
	if got[0].ID != "conv-00" || got[1].ID != "conv-01" || got[2].ID != "conv-02" {
		t.Errorf("order %v, want the file's first entries", got)
	}
}

func TestShareGPTWithoutTokenizer(t *testing.T) {
	t.Parallel()
	reqs, warns, err := Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 5 || len(warns) != 1 || !strings.Contains(warns[0], "approximate") {
		t.Errorf("got %d requests, warnings %v", len(reqs), warns)
	}
}

func TestShareGPTBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tok := idTok{vocab: 300}
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"not json", "hello world", []string{"bad.json:1:1", "ShareGPT JSON"}},
		{"jsonl instead of an array", `{"conversations": []}` + "\n", []string{"bad.json:1:1", "expected a JSON array"}},
		{"truncated", "[\n {\"conversations\": [\n", []string{"bad.json:", "unexpected end"}},
		{"turn without value", "[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"a b c d e f\"}, {\"from\": \"gpt\", \"value\": \"1 2 3 4\"}]},\n{\"conversations\": [{\"from\": \"human\"}, {\"from\": \"gpt\", \"value\": \"x\"}]}\n]",
			[]string{"bad.json:3", "entry 1", "conversations[0]", "\"value\""}},
		{"conversations not a list of objects", "[\n{\"conversations\": [1, 2]}\n]", []string{"bad.json:2", "entry 0", "\"value\""}},
		{"no usable rows", "[{\"conversations\": [{\"value\": \"hi\"}, {\"value\": \"yo\"}]}]", []string{"bad.json", "no usable rows"}},
		{"stray closing bracket", "[{\"conversations\": [{\"value\": \"a b c d e\"}, {\"value\": \"1 2 3 4\"}]}]\n]", []string{"bad.json:2:1", "unexpected data after the top-level array"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.json", tc.content)
			_, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: p, NumPrompts: 2, DisableShuffle: true}, tok)
			wantErr(t, err, tc.want...)
		})
	}
	_, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: filepath.Join(dir, "missing.json")}, tok)
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	_, _, err = Load(t.Context(), Config{Name: ShareGPT}, tok)
	if err == nil || !strings.Contains(err.Error(), "needs --dataset-path") {
		t.Errorf("no path: %v", err)
	}
}

// TestShareGPTFastScanMatchesEncodingJSON: the single-pass scanner and the
// encoding/json path agree on every file the scanner accepts, the scanner
// accepts every file encoding/json does (so it is really the path taken),
// and it declines malformed files (so errors come from encoding/json).
func TestShareGPTFastScanMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile(sampleShareGPTPath)
	if err != nil {
		t.Fatal(err)
	}
	// minTurns 2 is the single-turn dataset, 1 --multi-turn.
	for _, minTurns := range []int{1, 2} {
		for _, tc := range shareGPTScanCases(sample) {
			fast, fn, fok := scanShareGPT([]byte(tc), minTurns)
			slow, sn, serr := parseShareGPTSlow("f.json", []byte(tc), minTurns)
			if serr != nil && fok {
				t.Errorf("%.60q: scanner accepted a file encoding/json rejects (%v)", tc, serr)
			}
			if serr == nil && !fok {
				t.Errorf("%.60q: scanner declined a file encoding/json accepts", tc)
			}
			if fok && (fn != sn || !cmp.Equal(fast, slow, cmp.AllowUnexported(shareGPTEntry{}))) {
				t.Errorf("min %d, %.60q: fast %d/%v, slow %d/%v", minTurns, tc, fn, fast, sn, slow)
			}
		}
	}
}

func shareGPTScanCases(sample []byte) []string {
	return []string{
		string(sample),
		"[]",
		" [ ] \n",
		`[{"conversations": [{"value": "a"}, {"value": "b"}]}]`,
		`[{"id": 1, "conversations": [{"value": "a\u00e9\n"}, {"value": "b"}, 3]}, {"conversations": null}, {}]`,
		`[{"conversations": "text"}, {"conversations": [1]}, {"conversations": [true, false, null, -1.5e3]}]`,
		`[{"Conversations": [{"value": "a"}, {"value": "b"}]}]`,
		`[{"conversations": [{"value": "a"}]}, {"conversations": [{"value": "x"}, {"value": "y"}], "conversations": [{"value": "z"}]}]`,
		`[{"conversations": [{"value": "a"}, {"value": "b"}]},]`,
		`[{"conversations": [{"value": "a"}, {"value": "b"}]}] trailing`,
		`[{"conversations": [{"value": "a"}, {"value": "b"}]}]]`,
		"[]\n}",
		`[{"conversations": [{"value": "unterminated}]}]`,
		`[{"conversations": [01]}]`,
		`[{"conversations": [tru]}]`,
		"[{\"conversations\": [\"tab\tinside\"]}]",
		`[{"conv\u0065rsations": [{"value": "a"}, {"value": "b"}]}]`,
		`[1, 2]`,
		`[null, {"conversations": [{"value": "a"}, {"value": "b"}]}, null]`,
		`{"conversations": []}`,
		"\xef\xbb\xbf[]",
	}
}

func FuzzShareGPTScan(f *testing.F) {
	sample, _ := os.ReadFile(sampleShareGPTPath)
	for _, c := range shareGPTScanCases(sample[:2000]) {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fn, fok := scanShareGPT(data, 1)
		slow, sn, serr := parseShareGPTSlow("f.json", data, 1)
		if fok && serr != nil {
			t.Fatalf("scanner accepted what encoding/json rejects: %v", serr)
		}
		// encoding/json counts its depth limit per entry, the scanner from
		// the top-level array, so only very deep files may differ here.
		if !fok && serr == nil && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) < jsonscan.MaxDepth {
			t.Fatal("scanner declined what encoding/json accepts")
		}
		if fok && (fn != sn || !cmp.Equal(fast, slow, cmp.AllowUnexported(shareGPTEntry{}))) {
			t.Fatalf("fast %d/%v, slow %d/%v", fn, fast, sn, slow)
		}
	})
}

func TestBuiltinShareGPTSample(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile(sampleShareGPTPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != string(builtinShareGPTData) {
		t.Fatal("internal/dataset/sample/sharegpt_sample.json differs from testdata/dataset/sharegpt_sample.json; copy it over")
	}
	tok := realTokenizer(t, "gpt2")
	a, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: BuiltinShareGPT, NumPrompts: 20}, tok)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 20}, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(a, b) {
		t.Error("the built-in sample loads differently from the file")
	}
}
