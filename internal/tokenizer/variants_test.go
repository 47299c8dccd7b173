package tokenizer

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf16"
)

// TestVariantsMatchReference checks the components the six real tokenizers
// do not exercise. Each variant is a committed tokenizer.json with sections
// replaced (testdata/tokenizer/variants.json, written together with the
// reference ids by scripts/tokenizer/gen-variants.js).
func TestVariantsMatchReference(t *testing.T) {
	corpus, randoms := loadCorpus(t)
	b, err := os.ReadFile(filepath.Join(testdataDir, "variants.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Extra       []string `json:"extra"`
		RandomCount int      `json:"random_count"`
		MaxLen      int      `json:"max_len"`
		Variants    []struct {
			Name  string                     `json:"name"`
			Base  string                     `json:"base"`
			Set   map[string]json.RawMessage `json:"set"`
			Model map[string]json.RawMessage `json:"model"`
			Add   []json.RawMessage          `json:"add"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range corpus {
		if len(utf16.Encode([]rune(s))) <= spec.MaxLen { // JavaScript's length
			texts = append(texts, s)
		}
	}
	texts = append(texts, spec.Extra...)
	texts = append(texts, randoms[:spec.RandomCount]...)

	var exp map[string]struct {
		IDs        [][]int  `json:"ids"`
		IDsSpecial [][]int  `json:"ids_special"`
		Decoded    []string `json:"decoded"`
	}
	if err := json.Unmarshal(readGzip(t, filepath.Join(testdataDir, "expected", "variants.json.gz")), &exp); err != nil {
		t.Fatal(err)
	}
	bases := map[string]map[string]json.RawMessage{}
	for _, name := range []string{"gpt2", "mistral7b"} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(readGzip(t, filepath.Join(testdataDir, name, "tokenizer.json.gz")), &m); err != nil {
			t.Fatal(err)
		}
		bases[name] = m
	}

	for _, v := range spec.Variants {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			doc := maps.Clone(bases[v.Base])
			maps.Copy(doc, v.Set)
			var model map[string]json.RawMessage
			if err := json.Unmarshal(doc["model"], &model); err != nil {
				t.Fatal(err)
			}
			maps.Copy(model, v.Model)
			doc["model"] = mustJSON(t, model)
			if len(v.Add) > 0 {
				var added []json.RawMessage
				if err := json.Unmarshal(doc["added_tokens"], &added); err != nil {
					t.Fatal(err)
				}
				doc["added_tokens"] = mustJSON(t, append(added, v.Add...))
			}
			tok, err := Parse(v.Name, mustJSON(t, doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			e, ok := exp[v.Name]
			if !ok || len(e.IDs) != len(texts) {
				t.Fatalf("reference for %s has %d entries, want %d", v.Name, len(e.IDs), len(texts))
			}
			// texts[0] is "": what encoding it with special tokens adds is
			// what the post-processor adds to any sequence.
			if texts[0] != "" {
				t.Fatal("corpus no longer starts with the empty string")
			}
			if got, want := tok.NumSpecialTokensToAdd(), len(e.IDsSpecial[0]); got != want {
				t.Errorf("NumSpecialTokensToAdd = %d, want %d", got, want)
			}
			mm := &mismatches{t: t, what: v.Name}
			for i, s := range texts {
				got := tok.Encode(s, false)
				mm.check(slices.Equal(got, e.IDs[i]), "Encode(%q) =\n  %v\nwant\n  %v", short(s), got, e.IDs[i])
				want := e.IDsSpecial[i]
				if want == nil {
					want = e.IDs[i]
				}
				got = tok.Encode(s, true)
				mm.check(slices.Equal(got, want), "Encode(%q, special) =\n  %v\nwant\n  %v", short(s), got, want)
				dec := tok.Decode(e.IDs[i])
				mm.check(dec == e.Decoded[i], "Decode(encode(%q)) = %q, want %q", short(s), dec, e.Decoded[i])
			}
			mm.done(3 * len(texts))
		})
	}
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
