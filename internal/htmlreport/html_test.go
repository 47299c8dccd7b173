package htmlreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFile: the page lands whole at the path, mode 0644 (compare
// --html's); a page that cannot be built leaves the old file as it was.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := detailedResult(t, dir, "basic_stream"), detailedResult(t, dir, "skewed_itl")
	out := filepath.Join(dir, "compare.html")
	if err := WriteFile(out, []string{a, b}, Options{Title: "llmbench compare"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(string(data)), "</html>") || st.Mode().Perm() != 0o600 {
		t.Errorf("page of %d bytes, mode %v", len(data), st.Mode().Perm())
	}
	if err := WriteFile(out, []string{a, filepath.Join(dir, "missing.json")}, Options{}); err == nil {
		t.Fatal("a missing file: no error")
	}
	if again, _ := os.ReadFile(out); string(again) != string(data) {
		t.Error("a failed build changed the old page")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
