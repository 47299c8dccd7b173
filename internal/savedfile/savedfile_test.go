package savedfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// fixture paths in other packages' testdata: a real sweep, a plan and
// a conformance vector (input and vLLM's own result).
var (
	realSweep = filepath.Join("..", "plan", "testdata", "sweep-sim-batch8.json")
	realPlan  = filepath.Join("..", "htmlreport", "testdata", "plan-two.json")
	confInput = filepath.Join("..", "..", "testdata", "conformance", "metrics", "basic_stream.input.json")
	vllmOut   = filepath.Join("..", "..", "testdata", "conformance", "metrics", "basic_stream.expected.json")
)

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recordsFile writes the conformance input as llmbench's JSON-lines
// records and returns its path.
func recordsFile(t *testing.T) string {
	t.Helper()
	p, recs, _, err := record.ReadFile(confInput)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s, err := record.NewStream(&b, record.Header{Params: p})
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(&p, 0); err != nil {
		t.Fatal(err)
	}
	return write(t, "run.records.jsonl", b.Bytes())
}

// TestSniff: every kind by content, whatever the name; "steps" or
// "load_kind" alone marks a (broken) sweep, which ReadSweep then names.
func TestSniff(t *testing.T) {
	t.Parallel()
	sweep := read(t, realSweep)
	tests := []struct {
		name, path string
		want       Kind
	}{
		{"records", recordsFile(t), Records},
		{"conformance input", write(t, "in.json", read(t, confInput)), Input},
		{"vLLM result", write(t, "sweep-vllm.json", read(t, vllmOut)), Result},
		{"result", write(t, "r.json", []byte(`{"duration": 1, "completed": 2}`)), Result},
		{"appended result", write(t, "two.json", []byte("{\"duration\": 1}\n{\"duration\": 2}\n")), Result},
		{"result with NaN", write(t, "nan.json", []byte(`{"duration": NaN}`)), Result},
		{"sweep", write(t, "sweep-a.json", sweep), Sweep},
		{"sweep by another name", write(t, "capacity.json", sweep), Sweep},
		{"steps only", write(t, "sweep-b.json", []byte(`{"steps": []}`)), Sweep},
		{"load_kind only", write(t, "b.json", []byte(`{"load_kind": "users"}`)), Sweep},
		{"plan", write(t, "p.json", read(t, realPlan)), Plan},
		{"other kind", write(t, "k.json", []byte(`{"kind": "something"}`)), Result},
		{"array", write(t, "a.json", []byte(`[1, 2]`)), Unknown},
		{"null", write(t, "null.json", []byte(`null`)), Unknown},
		{"text", write(t, "t.txt", []byte("hello\n")), Unknown},
		{"empty", write(t, "e.json", nil), Unknown},
	}
	for _, tt := range tests {
		got, err := Sniff(tt.path)
		if err != nil || got != tt.want {
			t.Errorf("%s: Sniff = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := Sniff(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want not exist", err)
	}
	dir := t.TempDir()
	if _, err := Sniff(dir); err == nil || err.Error() != "read "+dir+": is a directory" {
		t.Errorf("a folder: %v, want os.ReadFile's words", err)
	}
	long := append([]byte(`{"duration": 1, "x": "`), bytes.Repeat([]byte("a"), 2*headLimit)...)
	if k, err := Sniff(write(t, "long.json", append(long, `"}`...))); err != nil || k != Result {
		t.Errorf("a result longer than the head: %v, %v", k, err)
	}
}

// TestReadSweep: a sweep decodes through capacity's decoder (which
// refuses steps without metrics); any other kind is named as not a sweep.
func TestReadSweep(t *testing.T) {
	t.Parallel()
	s, err := ReadSweep(write(t, "x.json", read(t, realSweep)))
	if err != nil || s.Label != "sim-batch8" || len(s.Steps) != 4 {
		t.Fatalf("ReadSweep = %+v, %v", s, err)
	}
	for _, tt := range []struct{ name, data, want string }{
		{"result", `{"duration": 1}`, "not a sweep file (no steps and load_kind)"},
		{"steps only", `{"steps": []}`, `not a sweep file: no "load_kind"`},
		{"no metrics", `{"load_kind": "concurrency", "steps": [{"load": 2, "load_kind": "concurrency"}]}`, "invalid sweep file: step 0 (load 2) has no metrics"},
	} {
		p := write(t, "s.json", []byte(tt.data))
		if _, err := ReadSweep(p); err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q naming the file", tt.name, err, tt.want)
		}
	}
}

// TestReadRun: records and input give records, a result its object, a
// sweep or a plan is refused; ReadPlan reads plans only.
func TestReadRun(t *testing.T) {
	t.Parallel()
	recs := recordsFile(t)
	for _, tt := range []struct {
		path    string
		records bool
	}{{recs, true}, {confInput, true}, {write(t, "r.json", []byte(`{"duration": 1, "completed": 2}`)), false}} {
		k, err := Sniff(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ReadRun(tt.path, k)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tt.path, err)
		case tt.records && (len(r.Records) != 10 || r.Result != nil):
			t.Errorf("%s: %d records, result %v", tt.path, len(r.Records), r.Result)
		case !tt.records && (r.Result == nil || r.Records != nil):
			t.Errorf("%s: no result object", tt.path)
		}
	}
	if _, err := ReadRun(realSweep, Sweep); err == nil || !strings.Contains(err.Error(), "a sweep file, not a run") {
		t.Errorf("sweep as a run: %v", err)
	}
	if p, err := ReadPlan(realPlan); err != nil || len(p.Candidates) == 0 {
		t.Errorf("ReadPlan = %v, %v", p, err)
	}
	if _, err := ReadPlan(realSweep); err == nil || !strings.Contains(err.Error(), "not a plan file") {
		t.Errorf("sweep as a plan: %v", err)
	}
}

// TestCount: how many files hold a kind; an unreadable file is an error.
func TestCount(t *testing.T) {
	t.Parallel()
	sweep := write(t, "sweep-a.json", read(t, realSweep))
	result := write(t, "r.json", []byte(`{"duration": 1}`))
	for _, tc := range []struct {
		paths []string
		want  int
	}{
		{nil, 0},
		{[]string{result, result}, 0},
		{[]string{sweep, result, sweep}, 2},
	} {
		if n, err := Count(tc.paths, Sweep); n != tc.want || err != nil {
			t.Errorf("Count(%v) = %d, %v; want %d", tc.paths, n, err, tc.want)
		}
	}
	if _, err := Count([]string{sweep, filepath.Join(t.TempDir(), "missing.json")}, Sweep); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReadSweeps: sweeps read in order with their paths; the first file
// that is not a sweep is the error.
func TestReadSweeps(t *testing.T) {
	t.Parallel()
	a, b := write(t, "a.json", read(t, realSweep)), write(t, "b.json", read(t, realSweep))
	files, err := ReadSweeps([]string{a, b})
	if err != nil || len(files) != 2 || files[0].Path != a || files[1].Path != b || files[1].Sweep.Label != "sim-batch8" {
		t.Fatalf("ReadSweeps = %+v, %v", files, err)
	}
	result := write(t, "r.json", []byte(`{"duration": 1}`))
	if _, err := ReadSweeps([]string{a, result}); err == nil || !strings.HasPrefix(err.Error(), result+": not a sweep file") {
		t.Errorf("a result among sweeps: %v", err)
	}
}
