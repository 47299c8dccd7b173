// Package llmbench_test checks that every place a comment or a document
// cites another document still resolves: the file exists and so does the
// heading, cited as docs/<name>.md#<anchor>, as docs/<name>.md, "<Heading>"
// or as a markdown link [text](<name>.md#<anchor>). A heading renamed
// without its citations fails here instead of rotting. Files outside the
// repository (../shared) are not checked.
package llmbench_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

func TestDocCitationsResolve(t *testing.T) {
	bad, err := brokenCitations(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestBrokenCitationsFound: the checker itself finds what it should.
func TestBrokenCitationsFound(t *testing.T) {
	doc := "# Top\n\n## The hand-over: queue time\n\n```\n## not a heading\n```\n\n## `steady_state`\n\n## `steady_state`\n"
	for _, tt := range []struct {
		name, file, text string
		broken           bool
	}{
		{"anchor", "a.go", "// see docs/x.md#the-hand-over-queue-time\npackage a\n", false},
		{"code span anchor", "a.go", "// docs/x.md#steady_state and docs/x.md#steady_state-1\npackage a\n", false},
		{"missing anchor", "a.go", "// see docs/x.md#hand-over\npackage a\n", true},
		{"heading prefix", "a.go", "// see docs/x.md, \"The hand-over\"\npackage a\n", false},
		{"heading over two lines", "a.go", "// see (docs/x.md, \"The\n// hand-over\")\npackage a\n", false},
		{"missing heading", "a.go", "// see docs/x.md, \"Thresholds\"\npackage a\n", true},
		{"partial word", "a.go", "// see docs/x.md, \"The hand\"\npackage a\n", true},
		{"heading in code block", "a.go", "// docs/x.md#not-a-heading\npackage a\n", true},
		{"missing file", "a.go", "// see docs/y.md\npackage a\n", true},
		{"string literal ignored", "a.go", "package a\n\nvar s = \"docs/y.md#z\"\n", false},
		{"benchmarks anchor", "a.go", "// (BENCHMARKS.md#memory)\npackage a\n", false},
		{"benchmarks anchor broken", "a.go", "// (BENCHMARKS.md#memory-per-stream)\npackage a\n", true},
		{"markdown link", "docs/z.md", "[x](x.md#top)\n", false},
		{"markdown link to root", "docs/z.md", "[x](../README.md#intro)\n", false},
		{"markdown own anchor", "docs/z.md", "# Zed\n[x](#zed)\n", false},
		{"markdown broken link", "docs/z.md", "[x](x.md#nope)\n", true},
		{"markdown prose citation", "docs/z.md", "see BENCHMARKS.md, \"Memory\"\n", false},
		{"markdown prose broken", "docs/z.md", "see `BENCHMARKS.md#nope`\n", true},
		{"outside the repository", "docs/z.md", "[x](../../shared/DESIGN.md#nope)\n", false},
		{"web link ignored", "docs/z.md", "[x](https://example.com/y.md#nope)\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"docs/x.md":     {Data: []byte(doc)},
				"README.md":     {Data: []byte("# Intro\n")},
				"BENCHMARKS.md": {Data: []byte("## Memory\n")},
				tt.file:         {Data: []byte(tt.text)},
			}
			bad, err := brokenCitations(fsys)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(bad) > 0; got != tt.broken {
				t.Errorf("broken = %v (%q), want %v", got, bad, tt.broken)
			}
		})
	}
}

var (
	// citeRE matches <name>.md#<anchor> and <name>.md, "<Heading>" (the
	// comma may be missing, the quote in parentheses).
	citeRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:\.\./)?(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.md)(?:#([A-Za-z0-9_-]+)|,? \(?"([^"]+)")?`)
	// linkRE matches a markdown link's target.
	linkRE  = regexp.MustCompile(`\]\(([^)\s]*)\)`)
	spaceRE = regexp.MustCompile(`\s+`)
)

// brokenCitations lists every citation in fsys's Go comments and markdown
// files that does not resolve.
func brokenCitations(fsys fs.FS) ([]string, error) {
	var bad []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		var texts []string
		switch path.Ext(p) {
		case ".go":
			texts, err = goComments(fsys, p)
		case ".md":
			texts, err = markdownTexts(fsys, p)
		}
		if err != nil {
			return err
		}
		for _, text := range texts {
			for _, c := range citations(text) {
				if msg := resolve(fsys, p, c); msg != "" {
					bad = append(bad, fmt.Sprintf("%s: %s: %s", p, c.raw, msg))
				}
			}
		}
		return nil
	})
	return bad, err
}

func goComments(fsys fs.FS, p string) ([]string, error) {
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, cg := range f.Comments {
		out = append(out, cg.Text())
	}
	return out, nil
}

// markdownTexts is the file's prose (one paragraph per text, so a
// citation may wrap) plus each link target made a citation.
func markdownTexts(fsys fs.FS, p string) ([]string, error) {
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	out := strings.Split(string(src), "\n\n")
	for _, m := range linkRE.FindAllStringSubmatch(string(src), -1) {
		target := m[1]
		switch {
		case strings.Contains(target, "://"), strings.HasPrefix(target, "mailto:"):
		case strings.HasPrefix(target, "#"):
			out = append(out, " "+path.Base(p)+target)
		default:
			out = append(out, " "+target)
		}
	}
	return out, nil
}

type citation struct{ raw, file, anchor, heading string }

func citations(text string) []citation {
	text = spaceRE.ReplaceAllString(text, " ")
	var out []citation
	for _, m := range citeRE.FindAllStringSubmatch(text, -1) {
		out = append(out, citation{raw: strings.TrimSpace(m[0]), file: m[1], anchor: m[2], heading: m[3]})
	}
	return out
}

// resolve returns why c, cited in file from, does not resolve ("" if it
// does). The cited file is looked for next to from, then at the root.
func resolve(fsys fs.FS, from string, c citation) string {
	if c.anchor == "" && c.heading == "" && !strings.HasPrefix(c.file, "docs/") {
		return "" // a bare name: maybe another project's file (a dataset's README.md)
	}
	near := path.Join(path.Dir(from), c.file)
	if strings.HasPrefix(near, "../") {
		return "" // outside the repository
	}
	var src []byte
	var err error
	for _, p := range []string{near, path.Clean(c.file)} {
		if src, err = fs.ReadFile(fsys, p); err == nil {
			break
		}
	}
	if err != nil {
		return "no such file"
	}
	heads := headings(string(src))
	switch {
	case c.anchor != "":
		for _, h := range heads {
			if h.anchor == c.anchor {
				return ""
			}
		}
		return "no heading with that anchor"
	case c.heading != "":
		c.heading = strings.ReplaceAll(c.heading, "`", "")
		for _, h := range heads {
			rest, ok := strings.CutPrefix(h.text, c.heading)
			if ok && (rest == "" || !isWordRune([]rune(rest)[0]) && rest[0] != '-') {
				return ""
			}
		}
		return "no such heading"
	}
	return ""
}

type heading struct{ text, anchor string }

// headings lists a markdown file's headings with GitHub's anchors: lower
// case, punctuation dropped, spaces made hyphens, a repeat numbered.
func headings(src string) []heading {
	var out []heading
	seen := map[string]int{}
	fence := ""
	for line := range strings.Lines(src) {
		line = strings.TrimRight(line, "\n")
		if f := strings.TrimLeft(line, " "); strings.HasPrefix(f, "```") || strings.HasPrefix(f, "~~~") {
			switch {
			case fence == "":
				fence = f[:3]
			case strings.HasPrefix(f, fence):
				fence = ""
			}
			continue
		}
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		if fence != "" || hashes == 0 || hashes > 6 || !strings.HasPrefix(line[hashes:], " ") {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[hashes:]), "#"))
		text = strings.NewReplacer("`", "", "*", "").Replace(text)
		anchor := slugify(text)
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		out = append(out, heading{text: text, anchor: anchor})
	}
	return out
}

func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case isWordRune(r), r == '-':
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}
