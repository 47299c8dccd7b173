package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
)

func TestParseBounds(t *testing.T) {
	t.Parallel()
	if b, err := ParseBounds(nil); b != nil || err != nil {
		t.Errorf("none: %v, %v; want nil, nil", b, err)
	}
	b, err := ParseBounds([]string{"p99_ttft_ms>+10%", "completed<=10"})
	if err != nil || len(b) != 2 || b[0].Key != "p99_ttft_ms" || !b[0].Relative || b[1].Op != "<=" || b[1].Value != 10 {
		t.Errorf("two: %+v, %v", b, err)
	}
	if _, err := ParseBounds([]string{"completed<=10", "oops", "x>"}); err == nil || !strings.Contains(err.Error(), `--fail-if "oops"`) {
		t.Errorf("the first bad one: %v", err)
	}
}

// TestLoadComparison: files read, labelled and judged; bounds crossed or
// too small to tell from noise; every input error returned.
func TestLoadComparison(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := conformanceResult(t, dir, "basic_stream", "a.json", nil)
	b := conformanceResult(t, dir, "skewed_itl", "b.json", nil)
	bounds := func(s ...string) []Bound {
		out, err := ParseBounds(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		name           string
		paths          []string
		bounds         []Bound
		crossed, noise int
		wantErr        string
	}{
		{name: "no bounds", paths: []string{a, b}},
		{name: "an absolute bound crossed", paths: []string{a, b}, bounds: bounds("completed>=1"), crossed: 1},
		{name: "a bound not crossed", paths: []string{a, b}, bounds: bounds("completed<0")},
		{name: "three files, each crossing", paths: []string{a, b, a}, bounds: bounds("completed>=1"), crossed: 2},
		{name: "a key no file has", paths: []string{a, b}, bounds: bounds("nope>1"), wantErr: `--fail-if "nope>1": `},
		{name: "a missing file", paths: []string{a, filepath.Join(dir, "missing.json")}, wantErr: "missing.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, crossed, noise, err := LoadComparison(tc.paths, tc.bounds, DefaultAlpha)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Files) != len(tc.paths) || c.Files[0].Label == "" || len(crossed) != tc.crossed || len(noise) != tc.noise {
				t.Errorf("%d files (first labelled %q), %d crossed, %d noise; want %d, %d, %d",
					len(c.Files), c.Files[0].Label, len(crossed), len(noise), len(tc.paths), tc.crossed, tc.noise)
			}
		})
	}
}

// TestWriteComparisonFormats: each format is its writer's output.
func TestWriteComparisonFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, crossed, _, err := LoadComparison([]string{
		conformanceResult(t, dir, "basic_stream", "a.json", nil),
		conformanceResult(t, dir, "skewed_itl", "b.json", nil),
	}, nil, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	ch := capacity.Choose(nil, capacity.Need{})
	for _, tc := range []struct {
		format      string
		cmp, choice func(*bytes.Buffer) error
	}{
		{"table", func(w *bytes.Buffer) error { return WriteComparisonTable(w, c) }, func(w *bytes.Buffer) error { return WriteChoiceTable(w, ch) }},
		{"json", func(w *bytes.Buffer) error { return WriteComparisonJSON(w, c, crossed) }, func(w *bytes.Buffer) error { return WriteChoiceJSON(w, ch) }},
		{"csv", func(w *bytes.Buffer) error { return WriteComparisonCSV(w, c) }, func(w *bytes.Buffer) error { return WriteChoiceCSV(w, ch) }},
	} {
		var got, want bytes.Buffer
		if err := WriteComparison(&got, c, crossed, tc.format); err != nil {
			t.Fatal(err)
		}
		if err := tc.cmp(&want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("WriteComparison %s:\n%s\nwant:\n%s", tc.format, got.String(), want.String())
		}
		got.Reset()
		want.Reset()
		if err := WriteChoice(&got, ch, tc.format); err != nil {
			t.Fatal(err)
		}
		if err := tc.choice(&want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("WriteChoice %s:\n%s\nwant:\n%s", tc.format, got.String(), want.String())
		}
	}
}

func TestWriteCrossings(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	WriteCrossings(&buf, []Crossing{{Reason: "B: a"}, {Reason: "C: b"}}, []Crossing{{Reason: "B: c: not significant"}})
	want := "fail-if (ignored): B: c: not significant\nfail-if: B: a\nfail-if: C: b\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	buf.Reset()
	if WriteCrossings(&buf, nil, nil); buf.Len() != 0 {
		t.Errorf("none: %q", buf.String())
	}
}
