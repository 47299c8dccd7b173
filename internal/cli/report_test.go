package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	code, stdout, errOut := mcRun(t, "report", mcInput("failures_concurrency"), "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if stdout != "Report written to "+out+"\n" {
		t.Errorf("stdout %q", stdout)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "Per-request timeline", "<svg", "unclassified"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}

	// Text to stdout: the tables and text histograms.
	code, stdout, errOut = mcRun(t, "report", mcInput("skewed_itl"), "--format", "text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"P99.9 ITL (ms)", "ITL distribution", "| ####"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"steps": [{"no_load": 1}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Finite ITLs whose milliseconds overflow: the histogram panicked.
	huge := filepath.Join(dir, "huge.records.jsonl")
	if err := os.WriteFile(huge, []byte(`{"llmbench_records":1,"params":{"duration_s":10,"tokenizer":"none"}}`+"\n"+
		`{"index":0,"success":true,"prompt_len":1,"output_tokens":3,"ttft":0.1,"itl":[0.001,1.7e308],"latency":0.5,"start_time":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hugeResult := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(hugeResult, []byte(`{"date": "20260101-000000", "duration": 10.0, "completed": 1, "ttfts": [0.1], "itls": [[0.001, 1.7e308]], "errors": [""]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a time past float64's milliseconds", []string{"report", huge, "--format", "text", "-o", "-"}, "itl[1] is 1.7e+308 s, more than 1e+12 s"},
		{"the same in a result's arrays", []string{"report", hugeResult, "--format", "text", "-o", "-"}, "request 0 of the per-request arrays: latency is 1.7e+308 s, more than 1e+12 s"},
		{"no files", []string{"report"}, "want one or more result, records or sweep files"},
		{"missing file", []string{"report", filepath.Join(dir, "nope.json")}, "no such file"},
		{"broken sweep", []string{"report", bad}, `not a sweep file: no "load_kind"`},
		{"bad format", []string{"report", mcInput("basic_stream"), "--format", "pdf"}, `--format "pdf"`},
		{"bad bound", []string{"report", mcInput("basic_stream"), "--fail-if", "x=1"}, "want KEY>BOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := mcRun(t, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

// TestCompareHTML: compare --html writes the compare page with the
// crossed bound highlighted, and keeps compare's exit code.
func TestCompareHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ccResult(t, dir, "basic_stream", "a.json")
	b := ccResult(t, dir, "skewed_itl", "b.json")
	out := filepath.Join(dir, "c.html")
	code, _, errOut := mcRun(t, "compare", a, b, "--fail-if", "p99_itl_ms>+10%", "--html", out)
	if code != 1 || !strings.Contains(errOut, "Report written to "+out) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="num crossed">612.00<`, "ITL CDF, all runs", "--fail-if bounds crossed"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("compare page lacks %q", want)
		}
	}
}
