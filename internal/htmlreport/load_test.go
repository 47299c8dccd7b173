package htmlreport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestResultRunRecordsBeside: a result's per-request data comes from the
// records file the run saved beside it (record.BesideResult, the
// extension replaced as the run names it), else from its arrays.
func TestResultRunRecordsBeside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	detailed, err := os.ReadFile(detailedResult(t, dir, "basic_stream"))
	if err != nil {
		t.Fatal(err)
	}
	p, recs, _, err := record.ReadFile(filepath.Join(conformanceDir, "basic_stream.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ result, records, from string }{
		{"a.json", "a.records.jsonl", "records file " + filepath.Join(dir, "a.records.jsonl")},
		// --result-filename custom.txt: the run saved custom.records.jsonl.
		{"custom.txt", "custom.records.jsonl", "records file " + filepath.Join(dir, "custom.records.jsonl")},
		{"alone.json", "", "per-request arrays of the result"},
	} {
		path := filepath.Join(dir, tc.result)
		if err := os.WriteFile(path, detailed, 0o600); err != nil {
			t.Fatal(err)
		}
		if tc.records != "" {
			if err := record.WriteFile(filepath.Join(dir, tc.records), p, recs); err != nil {
				t.Fatal(err)
			}
		}
		in, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if in.Run == nil {
			t.Fatalf("%s: a %v, not a run", tc.result, in.Kind)
		}
		if in.Run.RequestsFrom != tc.from {
			t.Errorf("%s: requests from %q, want %q", tc.result, in.Run.RequestsFrom, tc.from)
		}
	}
}
