package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/report"
)

// TestSave: the sweep file and its CSV are written whole, with the mode
// of every saved result; a symlink at the path is replaced, its target
// untouched.
func TestSave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := New(Config{Kind: capacity.Concurrency, ResultDir: dir, Label: "m", Date: "20261201-150000"}, &bench.Plan{}, nil, nil)
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, d.Path()); err != nil {
		t.Fatal(err)
	}
	an := &capacity.Sweep{LoadKind: capacity.Concurrency, Label: "m", Steps: []capacity.Row{{Load: 1}}}
	if err := d.Save(an); err != nil {
		t.Fatal(err)
	}
	if d.CSVPath() != strings.TrimSuffix(d.Path(), ".json")+".csv" {
		t.Errorf("CSV at %s, want beside %s", d.CSVPath(), d.Path())
	}
	var wantJSON, wantCSV bytes.Buffer
	if err := capacity.WriteJSON(&wantJSON, an); err != nil {
		t.Fatal(err)
	}
	if err := capacity.WriteCSV(&wantCSV, an); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{d.Path(): wantJSON.Bytes(), d.CSVPath(): wantCSV.Bytes()} {
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != report.FileMode {
			t.Errorf("%s: %v (%v), want a regular file with mode 0600", path, st.Mode(), err)
		}
		if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s holds %.80q (%v), want %.80q", path, b, err, want)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "old\n" {
		t.Errorf("the symlink's target holds %q (%v), want it untouched", b, err)
	}
}

// TestReport: the end of a sweep prints the analysis, saves the files and
// says where they went, and why the sweep stopped early unless the server
// died (the verdict says that); the HTML report only when asked.
func TestReport(t *testing.T) {
	t.Parallel()
	an, err := capacity.ReadSweep(filepath.Join("..", "capacity", "testdata", "a100_concurrency.json"))
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := capacity.WriteText(&text, an); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		res           Result
		html          bool
		note, written bool
	}{
		{"finished", Result{}, false, false, false},
		{"stopped early, with a report", Result{Stopped: "the knee is confirmed"}, true, true, true},
		{"the server died", Result{Stopped: "x", Dead: "refused"}, false, false, false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		d := New(Config{Kind: capacity.Concurrency, ResultDir: dir, Label: "m", Date: "20261201-150000"}, &bench.Plan{}, nil, nil)
		html := ""
		if tt.html {
			html = filepath.Join(dir, "sweep.html")
		}
		tt.res.Sweep = an
		var out bytes.Buffer
		if err := d.Report(&out, &tt.res, html); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := "\n" + text.String() + "Sweep saved to " + d.Path() + " (rows: " + d.CSVPath() + "; step results in " + d.Dir() + "/)\n"
		if tt.html {
			want += "HTML report written to " + html + "\n"
		}
		if tt.note {
			want += "Note: the sweep stopped early: " + tt.res.Stopped + ".\n"
		}
		if out.String() != want {
			t.Errorf("%s: printed\n%s\nwant\n%s", tt.name, out.String(), want)
		}
		for _, p := range []string{d.Path(), d.CSVPath()} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
		}
		if tt.html {
			b, err := os.ReadFile(html)
			if err != nil || !strings.Contains(string(b), "<title>llmbench sweep: "+an.Label+"</title>") {
				t.Errorf("%s: the report holds %.200q (%v)", tt.name, b, err)
			}
		}
	}
}
