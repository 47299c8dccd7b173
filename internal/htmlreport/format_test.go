package htmlreport

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseFormat: the two forms by name; anything else names the flag
// and the choices.
func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    Format
		wantErr string
	}{
		{"html", FormatHTML, ""},                          // the default
		{"text", FormatText, ""},                          // for a terminal
		{"HTML", 0, `--format "HTML": want html or text`}, // names are lower case
		{"json", 0, `--format "json": want html or text`}, // compare's format, not report's
		{"", 0, `--format "": want html or text`},         // given empty
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFormat(tc.in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("ParseFormat(%q) error = %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseFormat(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestRender: each format gives what its writer writes, byte for byte.
func TestRender(t *testing.T) {
	t.Parallel()
	page := func() *Page {
		return &Page{Title: "t", Sections: []Section{{Kind: "run", Title: "Run", Files: []string{"run.json"}, Notes: []string{"interrupted"}}}}
	}
	for _, tc := range []struct {
		name  string
		f     Format
		write func(*bytes.Buffer, *Page) error
		mark  string // a string only this form holds
	}{
		{"html", FormatHTML, func(b *bytes.Buffer, p *Page) error { return WriteHTML(b, p) }, "<html"},
		{"text", FormatText, func(b *bytes.Buffer, p *Page) error { return WriteText(b, p) }, "== Run =="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Render(page(), tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := tc.write(&want, page()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) || !strings.Contains(string(got), tc.mark) {
				t.Errorf("Render(%v) = %q, want %q (holding %q)", tc.f, got, want.Bytes(), tc.mark)
			}
		})
	}
}
