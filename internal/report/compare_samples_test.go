package report

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestSamplesFromRecordsBeside: a result's per-request data comes from
// the records file the run saved beside it (record.BesideResult: the
// extension replaced, as the run names it), else from its arrays.
func TestSamplesFromRecordsBeside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := record.Params{DurationS: 1, ModelID: "m", Tokenizer: record.TokenizerWhitespace, Date: "20260101-000000"}
	recs := []record.Record{{Success: true, PromptLen: 3, TTFT: 0.1, Latency: 0.3, ITL: []float64{0.1, 0.1}, GeneratedText: "a b c"}}
	for _, name := range []string{"a.records.jsonl", "custom.records.jsonl"} {
		if err := record.WriteFile(filepath.Join(dir, name), p, recs); err != nil {
			t.Fatal(err)
		}
	}
	arrays := map[string]any{"ttfts": []any{json.Number("0.2")}, "itls": []any{[]any{}}, "output_lens": []any{json.Number("1")}, "errors": []any{""}}
	for _, tc := range []struct{ name, from string }{
		{"a.json", "records file " + filepath.Join(dir, "a.records.jsonl")},
		// --result-filename custom.txt: the run saved custom.records.jsonl.
		{"custom.txt", "records file " + filepath.Join(dir, "custom.records.jsonl")},
		{"none.json", "per-request arrays"},
	} {
		f := &CompareFile{Path: filepath.Join(dir, tc.name), Values: arrays}
		s := f.samples()
		if f.SamplesFrom != tc.from || s == nil {
			t.Errorf("%s: samples from %q (%v), want %q", tc.name, f.SamplesFrom, s != nil, tc.from)
		}
	}
}
