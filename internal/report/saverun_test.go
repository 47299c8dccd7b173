package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestSaveRun: where the records went is said only of a whole, kept
// file; the result is saved when asked, with its extras; a result that
// cannot be written names the temporary records that keep the run.
func TestSaveRun(t *testing.T) {
	p := &record.Params{Backend: "openai", ModelID: "m", RequestRate: record.Inf, Date: "d", DurationS: 2, NumPrompts: ptr(3)}
	s := summaryFor(t, p, testRecords())
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		f       RunFiles
		out     string
		saved   bool
		wantErr string
	}{
		{"named records, no result", RunFiles{Records: RecordsFile{Path: "r.jsonl", Named: true, Whole: true}},
			"Records saved to r.jsonl\n", false, ""},
		{"detailed records", RunFiles{Records: RecordsFile{Path: "r.jsonl", Whole: true}},
			"Per-request records saved to r.jsonl (recompute with: llmbench metrics r.jsonl)\n", false, ""},
		{"records not whole", RunFiles{Records: RecordsFile{Path: "r.jsonl", Named: true}}, "", false, ""},
		{"result, temporary records", RunFiles{Dir: dir, Name: "run.json", Save: true, Extra: map[string]any{"cost": 1.5},
			Records: RecordsFile{Path: "tmp.jsonl", Temp: true, Whole: true}},
			"Result saved to " + filepath.Join(dir, "run.json") + "\n", true, ""},
		{"result fails, records kept", RunFiles{Dir: blocked, Name: "run.json", Save: true, Records: RecordsFile{Path: "tmp.jsonl", Temp: true, Whole: true}},
			"", false, "(the per-request records are kept in tmp.jsonl; recompute with: llmbench metrics tmp.jsonl)"},
		{"result fails", RunFiles{Dir: blocked, Name: "run.json", Append: true}, "", false, "saving result: creating result directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			saved, err := SaveRun(&out, s, p, testRecords(), tt.f)
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if out.String() != tt.out || saved != tt.saved {
				t.Errorf("out %q saved %v, want %q %v", out.String(), saved, tt.out, tt.saved)
			}
			if saved {
				b, err := os.ReadFile(filepath.Join(tt.f.Dir, tt.f.Name))
				if err != nil || !strings.Contains(string(b), `"cost": 1.5`) {
					t.Errorf("saved %s, %v", b, err)
				}
			}
		})
	}
}

// TestMakeDirs: each file's folder is made, "" skipped; a folder under a
// file fails.
func TestMakeDirs(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MakeDirs("", filepath.Join(dir, "a", "b", "run.jsonx"), filepath.Join(dir, "c", "r.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b", "c"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: %v", d, err)
		}
	}
	if err := MakeDirs(filepath.Join(blocked, "sub", "x")); err == nil {
		t.Error("a folder under a file: want an error")
	}
}
