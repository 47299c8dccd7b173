package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// InterruptedNote explains the mark of an interrupted result.
const InterruptedNote = "interrupted (Ctrl-C): covers only the requests it finished"

// CompareLegend returns the legend lines above the comparison table: one
// per file, "A  path (note; interrupted ...)".
func CompareLegend(files []*CompareFile) []string {
	w := 0
	for _, f := range files {
		w = max(w, len([]rune(f.Label)))
	}
	lines := make([]string, len(files))
	for i, f := range files {
		var notes []string
		if f.Note != "" {
			notes = append(notes, f.Note)
		}
		if f.Interrupted() {
			notes = append(notes, InterruptedNote)
		}
		line := f.Label + strings.Repeat(" ", w-len([]rune(f.Label))) + "  " + f.Path
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, "; ") + ")"
		}
		lines[i] = line
	}
	return lines
}

// columnLabel is a file's table header: its Label, with "*" when the run
// was interrupted.
func columnLabel(f *CompareFile) string {
	if f.Interrupted() {
		return f.Label + "*"
	}
	return f.Label
}

// CompareTableLines returns the side-by-side table: the legend, then one
// column per file (headed by its short label) and, after each file but the
// first, its Δ% against the first.
func CompareTableLines(files []*CompareFile) []string {
	header := []string{"Metric"}
	for i, f := range files {
		header = append(header, columnLabel(f))
		if i > 0 {
			header = append(header, "Δ%")
		}
	}
	table := [][]string{header}
	for _, row := range PresentRows(files) {
		line := []string{row.Label}
		for i, f := range files {
			line = append(line, f.Text(row.Key))
			if i > 0 {
				d, _, _ := Delta(files, i, row.Key)
				line = append(line, d)
			}
		}
		table = append(table, line)
	}
	widths := make([]int, len(header))
	for _, line := range table {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	out := CompareLegend(files)
	for _, line := range table {
		var b strings.Builder
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// WriteCompareTable writes CompareTableLines.
func WriteCompareTable(w io.Writer, files []*CompareFile) error {
	return writeLines(w, CompareTableLines(files))
}

// compareJSON is WriteCompareJSON's output.
type compareJSON struct {
	Files   []compareJSONFile `json:"files"`
	Rows    []compareJSONRow  `json:"rows"`
	Crossed []string          `json:"fail_if_crossed"`
}

type compareJSONFile struct {
	Path        string `json:"path"`
	Label       string `json:"label"`
	Note        string `json:"note,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
}

type compareJSONRow struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	// Values has one entry per file, null when the file lacks the key.
	Values []*float64 `json:"values"`
	// DeltaPct is the change against the first file in percent, null for
	// the first file and when it cannot be computed.
	DeltaPct []*float64 `json:"delta_pct"`
}

// WriteCompareJSON writes the comparison as JSON: the files (path, label,
// note, interrupted), one row per present figure with each file's value
// and Δ%, and the reasons of the crossed bounds.
func WriteCompareJSON(w io.Writer, files []*CompareFile, crossed []Crossing) error {
	out := compareJSON{Crossed: []string{}}
	for _, c := range crossed {
		out.Crossed = append(out.Crossed, c.Reason)
	}
	for _, f := range files {
		out.Files = append(out.Files, compareJSONFile{Path: f.Path, Label: f.Label, Note: f.Note, Interrupted: f.Interrupted()})
	}
	for _, row := range PresentRows(files) {
		r := compareJSONRow{Key: row.Key, Label: row.Label}
		for i, f := range files {
			var vp, dp *float64
			if v, ok := f.Number(row.Key); ok {
				vp = &v
			}
			if _, d, ok := Delta(files, i, row.Key); i > 0 && ok {
				dp = &d
			}
			r.Values = append(r.Values, vp)
			r.DeltaPct = append(r.DeltaPct, dp)
		}
		out.Rows = append(out.Rows, r)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encoding the comparison: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
