package llmbench_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayoutNamesEveryPackage: README's Layout section names every package
// under internal/ (by its path or its last element, in backquotes), so a
// new package cannot land without a line that says what it is for.
func TestLayoutNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## Layout\n")
	if start < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	layout := readme[start+1:]
	if end := strings.Index(layout[3:], "\n## "); end >= 0 {
		layout = layout[:end+3]
	}
	err = filepath.WalkDir("internal", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() == "testdata" {
			return err
		}
		goFiles, _ := filepath.Glob(filepath.Join(p, "*.go"))
		if len(goFiles) == 0 {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "internal"+string(filepath.Separator)))
		if p == "internal" {
			return nil
		}
		if !strings.Contains(layout, "`"+rel+"`") && !strings.Contains(layout, "`"+filepath.Base(p)+"`") {
			t.Errorf("README's Layout does not name package internal/%s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
