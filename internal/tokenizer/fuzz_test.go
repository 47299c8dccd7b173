package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncode feeds arbitrary strings (valid UTF-8 or not) to GPT-2, Mistral
// and a tokenizer using most components: no panic, ids within the
// vocabulary, and byte-level round trips for valid UTF-8.
func FuzzEncode(f *testing.F) {
	corpus, randoms := loadCorpus(f)
	for _, s := range corpus[:60] {
		f.Add(s)
	}
	for _, s := range randoms[:40] {
		f.Add(s)
	}
	f.Add("\xff\xfe<s>\xe2\x82")
	gptJSON, gptCfg := gpt2Files(f)
	gpt2, err := Parse("gpt2", gptJSON, gptCfg)
	if err != nil {
		f.Fatal(err)
	}
	mistral, err := Parse("mistral7b", readGzip(f, testdataDir+"/mistral7b/tokenizer.json.gz"), nil)
	if err != nil {
		f.Fatal(err)
	}
	mixed, err := Parse("mixed", []byte(mixedJSON), nil)
	if err != nil {
		f.Fatal(err)
	}
	toks := []*Tokenizer{gpt2, mistral, mixed}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			ids := tok.Encode(s, true)
			for _, id := range ids {
				if _, ok := tok.model.idToToken(id); !ok {
					if _, ok := tok.added.byID[id]; !ok {
						t.Fatalf("%s: Encode(%q) gave unknown id %d", tok.ID(), s, id)
					}
				}
			}
			out := tok.Decode(ids)
			if !utf8.ValidString(out) {
				t.Fatalf("%s: Decode gave invalid UTF-8 %q", tok.ID(), out)
			}
		}
		if utf8.ValidString(s) {
			if got := gpt2.Decode(gpt2.Encode(s, false)); got != s {
				t.Fatalf("gpt2 round trip: %q -> %q", s, got)
			}
		}
	})
}

// mixedJSON is a small tokenizer exercising most components.
const mixedJSON = `{
 "added_tokens": [
  {"id": 9, "content": "<x>", "lstrip": true, "rstrip": true, "single_word": false, "normalized": false, "special": true},
  {"id": 10, "content": "AB", "lstrip": false, "rstrip": false, "single_word": true, "normalized": true, "special": false}
 ],
 "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Replace", "pattern": {"Regex": "\\d"}, "content": "7"}]},
 "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
   {"type": "Split", "pattern": {"Regex": "(?i:'s|'t)|\\s+(?!\\S)|\\w+"}, "behavior": "MergedWithNext", "invert": true},
   {"type": "Digits", "individual_digits": true}, {"type": "Punctuation", "behavior": "Contiguous"},
   {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}]},
 "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<x>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<x>": {"id": "<x>", "ids": [9], "tokens": ["<x>"]}}},
 "decoder": {"type": "Sequence", "decoders": [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 1}]},
 "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
  "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "▁": 4, "▁ab": 5, "<0x41>": 6, "<0xC3>": 7, "<0xA9>": 8},
  "merges": [["a", "b"], ["▁", "ab"]]}
}`

// FuzzParse feeds malformed tokenizer.json documents to Parse: it must
// return an error or a working tokenizer, never panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(mixedJSON), "ab AB <x> é 12")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`), "aaa")
	f.Add([]byte(`{"model": {"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}, "pre_tokenizer": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"}}`), "ab")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 4000000000}, "merges": []}}`), "a")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}}`), "a")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]}}`), "a")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"": 0, "a": 1}, "merges": []}, "added_tokens": [{"id": 5, "content": ""}]}`), "")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Removed", "invert": true}}`), "aaba")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "decoder": {"type": "Strip", "content": "a", "start": -5, "stop": 99}}`), "aaa")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "q"}}]}}`), "a")
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "normalizer": {"type": "Sequence", "normalizers": [null, {"type": "Prepend", "prepend": ""}]}}`), "a")
	f.Fuzz(func(t *testing.T, doc []byte, text string) {
		if len(doc) > 1<<16 || len(text) > 1<<12 {
			return
		}
		tok, err := Parse("fuzz", doc, doc)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error: %q", err)
			}
			return
		}
		ids := tok.Encode(text, true)
		tok.Decode(ids)
		tok.Decode([]int{-1, 0, 1, 1 << 40})
		_ = tok.VocabSize() + tok.NumSpecialTokensToAdd() + len(tok.SpecialIDs())
	})
}

func TestScannerLimits(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if _, err := Parse("x", []byte(`{"model": `+deep+`}`), nil); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("deep nesting: err = %v", err)
	}
	for _, doc := range []string{`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}} x`, `{"model": "\u00"}`, `{"model": {"vocab": {"a": "0"}}}`, `[]`, ``,
		// Rejected by encoding/json, so by the scanner too, even in parts
		// nothing else reads.
		`{"model": {"type": "BPE", "vocab": {"a": 01}, "merges": []}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "x": tru}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "x": "\q"}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "x": [1e]}}`} {
		if _, err := Parse("x", []byte(doc), nil); err == nil {
			t.Errorf("Parse(%q) succeeded", doc)
		}
	}
	// Escapes decode as encoding/json does, surrogate pairs included.
	tok, err := Parse("x", []byte(`{"model": {"type": "BPE", "vocab": {"\ud83d\ude00": 0, "\u00e9\n\"": 1, "\ud800": 2}, "merges": []}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for s, id := range map[string]int{"😀": 0, "é\n\"": 1, "\ufffd": 2} {
		if got := tok.model.vocab[s]; got != id {
			t.Errorf("vocab[%q] = %d, want %d", s, got, id)
		}
	}
}
