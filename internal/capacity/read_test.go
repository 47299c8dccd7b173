package capacity

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSweepRoundTrip: every golden sweep file reads back into the
// one type and writes out byte for byte, so the reader loses nothing the
// writer saves (the step figures under "metrics" above all).
func TestReadSweepRoundTrip(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden sweep files: %v", err)
	}
	for _, f := range files {
		s, err := ReadSweep(f)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, s); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: written back differently", f)
		}
		if v, ok := s.Steps[0].Value("p99_ttft_ms"); !ok || v != s.Steps[0].P99TTFTMs {
			t.Errorf("%s: step 0 p99_ttft_ms %v %v, want %v from metrics", f, v, ok, s.Steps[0].P99TTFTMs)
		}
	}
}

// TestDecodeSweepRefuses: what is not a sweep, or a sweep no page can
// draw, is an error that says why; steps come back in load order.
func TestDecodeSweepRefuses(t *testing.T) {
	t.Parallel()
	step := func(load, kind string) string {
		return `{"load":` + load + `,"load_kind":"` + kind + `","metrics":{"output_throughput":1}}`
	}
	tests := []struct {
		name, in, err string
	}{
		{"not JSON", `{`, "not a sweep file"},
		{"a result", `{"completed":3,"duration":1}`, `not a sweep file: no "load_kind"`},
		{"no steps key", `{"load_kind":"concurrency"}`, `not a sweep file: no "steps"`},
		{"no steps", `{"load_kind":"concurrency","steps":[]}`, "no steps"},
		{"unknown kind", `{"load_kind":"qps","steps":[` + step("1", "qps") + `]}`, `unknown load_kind "qps"`},
		{"mixed kinds", `{"load_kind":"users","steps":[` + step("1", "concurrency") + `]}`, `is a "concurrency" step in a "users" sweep`},
		{"top-level figures only", `{"load_kind":"concurrency","steps":[{"load":1,"load_kind":"concurrency","output_throughput":5}]}`, "step 0 (load 1) has no metrics"},
		{"wrong type", `{"load_kind":"concurrency","steps":[{"load":"one"}]}`, "invalid sweep file"},
	}
	for _, tt := range tests {
		_, err := DecodeSweep(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
	s, err := DecodeSweep(strings.NewReader(`{"load_kind":"request_rate","steps":[` + step("4", "request_rate") + `,` + step("0.5", "request_rate") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Steps[0].Load != 0.5 || s.Steps[1].Load != 4 {
		t.Errorf("steps not in load order: %v, %v", s.Steps[0].Load, s.Steps[1].Load)
	}
	if _, err := ReadSweep(filepath.Join(t.TempDir(), "absent.json")); err == nil {
		t.Error("no error for a missing file")
	}
}
