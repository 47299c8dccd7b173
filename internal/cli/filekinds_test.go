package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/golden"
	"github.com/llmbench/llmbench/internal/record"
)

// fileKindFixtures writes one file of every kind the commands read (and
// a few that are none) into dir and returns their names and paths, in a
// fixed order. Every file is deterministic: the records come from a
// conformance vector, the sweep is a real one (internal/plan/testdata).
func fileKindFixtures(t *testing.T, dir string) [][2]string {
	t.Helper()
	conf := filepath.Join("..", "..", "testdata", "conformance", "metrics", "basic_stream.input.json")
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	params, recs, _, err := record.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	params.Date = "20260101-000000"
	var rb bytes.Buffer
	s, err := record.NewStream(&rb, record.Header{Params: params})
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(&params, 0); err != nil {
		t.Fatal(err)
	}
	records := write("run.records.jsonl", rb.Bytes())
	code, result, errs := runCLI(t, "metrics", records, "--format", "json")
	if code != 0 {
		t.Fatalf("metrics: exit %d: %s", code, errs)
	}
	// The result is saved apart from its records (run.json would read
	// run.records.jsonl beside it).
	resultPath := write("result.json", []byte(result))
	sweep := read(filepath.Join("..", "plan", "testdata", "sweep-sim-batch8.json"))
	return [][2]string{
		{"result", resultPath},
		{"appended result", write("appended.json", []byte(strings.TrimSpace(result)+"\n"+strings.TrimSpace(result)+"\n"))},
		{"vllm result", write("vllm.json", read(filepath.Join("..", "..", "testdata", "conformance", "metrics", "basic_stream.expected.json")))},
		{"records", records},
		{"conformance input", write("input.json", read(conf))},
		{"sweep", write("sweep-a.json", sweep)},
		{"sweep not named sweep-", write("capacity.json", sweep)},
		{"sweep without metrics", write("sweep-minimal.json", []byte(`{"load_kind": "concurrency", "steps": [{"load": 2, "load_kind": "concurrency"}]}`))},
		{"steps only", write("sweep-steps.json", []byte(`{"steps": [{"load": 2}]}`))},
		{"plan", write("plan.json", read(filepath.Join("..", "htmlreport", "testdata", "plan-two.json")))},
		{"empty object", write("empty.json", []byte("{}\n"))},
		{"not JSON", write("notes.txt", []byte("hello\n"))},
		{"missing", filepath.Join(dir, "missing.json")},
		{"empty folder", t.TempDir()},
	}
}

var (
	planDate = regexp.MustCompile(`plan-[0-9]{8}-[0-9]{6}\.json`)
	tempDir  = regexp.MustCompile(`/[^ ]*/TestFileKindsByCommand[0-9]+/[0-9]+`)
)

// TestFileKindsByCommand pins what each command that reads saved files
// does with each kind of file: its exit code and the first line it
// writes to stdout and stderr (the temp folder as $DIR). The kinds are
// told by content in one place (see Sniff); this table is the net that
// keeps every command's accepted files and error messages as they were.
func TestFileKindsByCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := t.TempDir()
	commands := []struct {
		name string
		args func(path string) []string
	}{
		{"compare one", func(p string) []string { return []string{"compare", p} }},
		{"compare two", func(p string) []string { return []string{"compare", p, p} }},
		{"report", func(p string) []string { return []string{"report", p, "--format", "text"} }},
		{"metrics", func(p string) []string { return []string{"metrics", p, "--date", "20260101-000000"} }},
		{"merge", func(p string) []string { return []string{"merge", p} }},
		{"plan", func(p string) []string { return []string{"plan", p, "--peak-users", "10", "--result-dir", out} }},
	}
	first := func(s string) string {
		line, _, _ := strings.Cut(s, "\n")
		line = strings.ReplaceAll(line, out, "$OUT")
		line = strings.ReplaceAll(line, dir, "$DIR")
		line = tempDir.ReplaceAllLiteralString(line, "$TEMP")
		// Column widths follow the temp folder's length, the plan's name
		// the clock.
		line = planDate.ReplaceAllString(line, "plan-DATE.json")
		return strings.Join(strings.Fields(line), " ")
	}
	var got bytes.Buffer
	for _, f := range fileKindFixtures(t, dir) {
		for _, c := range commands {
			code, stdout, stderr := runCLI(t, c.args(f[1])...)
			fmt.Fprintf(&got, "%s × %s: exit %d\n  stdout: %s\n  stderr: %s\n", c.name, f[0], code, first(stdout), first(stderr))
		}
	}
	golden.Check(t, "filekinds.golden", got.Bytes(), *csUpdate)
}
