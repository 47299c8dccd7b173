package htmlreport

import (
	"bytes"
	"fmt"
)

// Format is the form "llmbench report" draws a page in (--format).
type Format int

const (
	// FormatHTML is one self-contained HTML file with charts (WriteHTML).
	FormatHTML Format = iota
	// FormatText is the tables and text histograms, for a terminal
	// (WriteText).
	FormatText
)

// ParseFormat reads --format: "html" or "text".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "html":
		return FormatHTML, nil
	case "text":
		return FormatText, nil
	}
	return 0, fmt.Errorf("--format %q: want html or text", s)
}

// Render draws p in format f, whole, in memory: a page that fails to
// render leaves nothing half written, on standard output or in a file.
func Render(p *Page, f Format) ([]byte, error) {
	write := WriteHTML
	if f == FormatText {
		write = WriteText
	}
	var buf bytes.Buffer
	if err := write(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
