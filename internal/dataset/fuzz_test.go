package dataset

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadCustom: any bytes as a custom JSONL file give rows or an error,
// never a panic.
func FuzzReadCustom(f *testing.F) {
	sample, _ := os.ReadFile(sampleCustomPath)
	for _, s := range []string{string(sample), "", "{}", "{\"prompt\": 1}", "[1]", "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"x\"}]}]}", "{\"prompt\": \"a\", \"output_tokens\": \"7\"}\n\n{\"prompt\":\"b\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _ = Load(t.Context(), Config{Name: Custom, Path: p, NumPrompts: 3, CustomOutputLen: -1}, idTok{vocab: 300})
	})
}

// FuzzReadRows: any bytes as an hf data file (JSON, JSON lines, Parquet)
// give rows or an error, never a panic.
func FuzzReadRows(f *testing.F) {
	f.Add([]byte(`[{"prompt": "a b c d e"}]`))
	f.Add([]byte("{\"question\": \"q q q q\", \"answer\": \"a a a a\"}\n"))
	f.Add(parquetBytes(f, []pqAlpacaRow{{Instruction: "Sort these words please.", Input: "b a", Output: "a b and so on"}}))
	f.Add(parquetBytes(f, convRows("x", 2)))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "d.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readRows(context.Background(), p)
		if err != nil || len(rows) == 0 {
			return
		}
		if l, err := detectLayout(rows[0], ""); err == nil {
			for _, r := range rows {
				_, _, _, _ = l.extract(r)
			}
		}
	})
}
