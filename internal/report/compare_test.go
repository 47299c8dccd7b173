package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/llmbench/llmbench/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got, *update)
}

// conformanceResult writes the saved result of a conformance vector (as
// vLLM wrote it) into dir/as, with keys replaced by set, and returns the
// path.
func conformanceResult(t *testing.T, dir, vector, as string, set map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "conformance", "metrics", vector+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		SaveResult map[string]any `json:"save_result"`
	}
	// Numbers keep their text (56.0 stays 56.0, as vLLM wrote it).
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&exp); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		exp.SaveResult[k] = v
	}
	out, err := json.Marshal(exp.SaveResult)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, as)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := conformanceResult(t, dir, "basic_stream", "a.json", nil)
	b := conformanceResult(t, dir, "skewed_itl", "b.json", nil)
	c := conformanceResult(t, dir, "bursts_peak", "c.json", map[string]any{"llmbench": map[string]any{"interrupted": true}})
	tests := []struct {
		name   string
		paths  []string
		bounds []string
	}{
		{"two", []string{a, b}, nil}, // the basic Δ% table
		{"three-interrupted", []string{a, b, c}, []string{"p99_ttft_ms>+10%", "failed>=1"}}, // a third column, a mark, crossed bounds
		{"every-percentile", []string{b, a}, []string{"mean_itl_ms<-20%", "completed<=10"}}, // P90/P99.9 only in the base
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var files []*CompareFile
			for _, p := range tt.paths {
				f, err := ReadCompareFile(p)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			LabelCompareFiles(files)
			var bounds []Bound
			for _, s := range tt.bounds {
				bd, err := ParseBound(s)
				if err != nil {
					t.Fatal(err)
				}
				bounds = append(bounds, bd)
			}
			crossed, err := CheckBounds(files, bounds)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteCompareTable(&buf, files); err != nil {
				t.Fatal(err)
			}
			buf.WriteString("--- json\n")
			if err := WriteCompareJSON(&buf, files, crossed); err != nil {
				t.Fatal(err)
			}
			// Temporary paths vary between runs.
			got := strings.ReplaceAll(buf.String(), dir+string(filepath.Separator), "")
			golden(t, filepath.Join("compare", tt.name+".golden"), []byte(got))
		})
	}
}

func TestParseBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Bound
		wantErr string
	}{
		{"p99_ttft_ms>+10%", Bound{Text: "p99_ttft_ms>+10%", Key: "p99_ttft_ms", Op: ">", Value: 10, Relative: true}, ""}, // relative growth
		{"request_throughput<-5%", Bound{Text: "request_throughput<-5%", Key: "request_throughput", Op: "<", Value: -5, Relative: true}, ""},
		{"p99_ttft_ms>=250", Bound{Text: "p99_ttft_ms>=250", Key: "p99_ttft_ms", Op: ">=", Value: 250}, ""}, // absolute, two-character op
		{"completed <= 6", Bound{Text: "completed <= 6", Key: "completed", Op: "<=", Value: 6}, ""},         // spaces allowed
		{"p99_ttft_ms=10%", Bound{}, "want KEY>BOUND"},                                                      // no < or >
		{">10", Bound{}, "want KEY>BOUND"}, // no key
		{"x>ten%", Bound{}, `bound "ten" is not a number`},
		{"x>%", Bound{}, `bound "" is not a number`},
		{"x>NaN", Bound{}, "not a number"},
	}
	for _, tt := range tests {
		got, err := ParseBound(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseBound(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseBound(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestPythonJSONCompat(t *testing.T) {
	t.Parallel()
	in := `{"a": NaN, "b": [Infinity, -Infinity], "s": "NaN \"Infinity\"", "c": 1}`
	want := `{"a": null, "b": [null, null], "s": "NaN \"Infinity\"", "c": 1}`
	if got := string(PythonJSONCompat([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
