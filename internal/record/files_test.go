package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBesideResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"run.json", "run.records.jsonl"},
		{"bench_results/openai-chat-4qps-m-20260101-000000.json", "bench_results/openai-chat-4qps-m-20260101-000000.records.jsonl"},
		// The run replaces any extension (recfile.Place), so a
		// --result-filename NAME.txt has its records at NAME.records.jsonl.
		{"custom.txt", "custom.records.jsonl"},
		{"no-extension", "no-extension.records.jsonl"},
		// A dot in a folder is no extension.
		{"dir.v1/run", "dir.v1/run.records.jsonl"},
		{"a.b.json", "a.b.records.jsonl"},
		{"", ""},
	} {
		if got := BesideResult(tc.in); got != tc.want {
			t.Errorf("BesideResult(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDateLayout(t *testing.T) {
	t.Parallel()
	d := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := d.Format(DateLayout); got != "20260102-030405" {
		t.Errorf("DateLayout formats %v as %q, want vLLM's %%Y%%m%%d-%%H%%M%%S 20260102-030405", d, got)
	}
}

func TestReadPath(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := Params{DurationS: 1, ModelID: "m", Date: "20260101-000000"}
	if err := WriteJSONLines(&buf, p, []Record{{Success: true, PromptLen: 3, TTFT: 0.1, Latency: 0.2, ITL: []float64{}}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.records.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, stdin, wantErr string
		wantRecs                   int
	}{
		{name: "file", path: path, stdin: "ignored", wantRecs: 1},
		{name: "stdin", path: "-", stdin: buf.String(), wantRecs: 1},
		{name: "stdin error", path: "-", stdin: "{not json\n", wantErr: "stdin: "},
		{name: "file error", path: path + ".missing", wantErr: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, recs, f, err := ReadPath(tc.path, strings.NewReader(tc.stdin))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tc.wantRecs || f != FormatJSONLines || got.ModelID != "m" {
				t.Errorf("read %d records, format %v, model %q", len(recs), f, got.ModelID)
			}
		})
	}
}
