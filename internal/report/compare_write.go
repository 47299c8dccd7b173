package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/table"
)

// InterruptedNote explains the mark of an interrupted result.
const InterruptedNote = "interrupted (Ctrl-C): covers only the requests it finished"

// CompareLegend returns the legend lines above the comparison table: one
// per file, "A  path (note; interrupted ...)".
func CompareLegend(files []*CompareFile) []string {
	t := &table.Table{Columns: []table.Column{{Key: "label"}, {Key: "path"}}}
	for _, f := range files {
		var notes []string
		if f.Note != "" {
			notes = append(notes, f.Note)
		}
		if f.Interrupted() {
			notes = append(notes, InterruptedNote)
		}
		path := f.Path
		if len(notes) > 0 {
			path += " (" + strings.Join(notes, "; ") + ")"
		}
		t.Rows = append(t.Rows, []table.Cell{table.Words(f.Label), table.Words(path)})
	}
	return table.Lines(t, table.Style{NoHeader: true, TrimRight: true})
}

// columnLabel is a file's table header: its Label, with "*" when the run
// was interrupted.
func columnLabel(f *CompareFile) string {
	if f.Interrupted() {
		return f.Label + "*"
	}
	return f.Label
}

// DeltaTable is the comparison's table: a row per figure the files have
// (its result key, for machine readers, and its label), a column per file (headed by its label) and, after each file but the
// first, its Δ% against the first with its significance mark when
// judged. A crossed bound marks the file's value and its Δ% cell; with
// intervals a bootstrap-judged Δ% carries the interval of the relative
// change ("+3.10% (p=0.003) [+1.20%, +5.00%]"). compare's text and the
// HTML compare page both show it.
func (c *Comparison) DeltaTable(crossed []Crossing, intervals bool) *table.Table {
	files := c.Files
	hit := map[string]bool{}
	for _, cr := range crossed {
		hit[strconv.Itoa(cr.File)+" "+cr.Key] = true
	}
	t := &table.Table{Title: "Headline figures"}
	t.AddColumn("key", "Key", table.Left)
	t.AddColumn("metric", "Metric", table.Left)
	for i, f := range files {
		t.AddColumn(f.Label, columnLabel(f), table.Right)
		if i > 0 {
			t.AddColumn(f.Label+" delta_pct", "Δ%", table.Right)
		}
	}
	for _, row := range PresentRows(files) {
		line := []table.Cell{table.Words(row.Key), table.Words(row.Label)}
		for i, f := range files {
			mark := ""
			if hit[strconv.Itoa(i)+" "+row.Key] {
				mark = table.Crossed
			}
			v := table.Cell{Text: f.Text(row.Key), Num: true, Mark: mark}
			if x, ok := f.Number(row.Key); ok {
				v.Value = &x
			}
			line = append(line, v)
			if i == 0 {
				continue
			}
			d := table.Cell{Text: c.DeltaText(i, row.Key), Num: true, Mark: mark}
			if _, x, ok := Delta(files, i, row.Key); ok {
				d.Value = &x
			}
			if sg, ok := c.Significance(i, row.Key); intervals && ok && d.Text != "-" && !math.IsNaN(sg.RelLow) {
				d.Text += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", sg.RelLow*100, sg.RelHigh*100)
			}
			line = append(line, d)
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}

// CompareTableLines returns the side-by-side table of files with plain
// Δ% cells (no significance tests): ComparisonTableLines of an unjudged
// comparison.
func CompareTableLines(files []*CompareFile) []string {
	return ComparisonTableLines(&Comparison{Files: files})
}

// ComparisonTableLines returns the legend, then the DeltaTable (without
// crossed bounds and intervals), then the notes on how changes were
// judged and the configuration table with its warnings.
func ComparisonTableLines(c *Comparison) []string {
	out := append(CompareLegend(c.Files), table.Lines(c.DeltaTable(nil, false).Without("key"), table.Style{})...)
	out = append(out, c.Notes()...)
	if cfg := ConfigLines(c.Files); cfg != nil {
		out = append(out, "")
		out = append(out, cfg...)
	}
	return out
}

// WriteCompareTable writes CompareTableLines.
func WriteCompareTable(w io.Writer, files []*CompareFile) error {
	return writeLines(w, CompareTableLines(files))
}

// WriteComparison writes compare's answer over result files in format:
// "json" (WriteComparisonJSON, with the crossed bounds), "csv"
// (WriteComparisonCSV), else the table (WriteComparisonTable).
func WriteComparison(w io.Writer, c *Comparison, crossed []Crossing, format string) error {
	switch format {
	case "json":
		return WriteComparisonJSON(w, c, crossed)
	case "csv":
		return WriteComparisonCSV(w, c)
	}
	return WriteComparisonTable(w, c)
}

// WriteComparisonTable writes ComparisonTableLines.
func WriteComparisonTable(w io.Writer, c *Comparison) error {
	return writeLines(w, ComparisonTableLines(c))
}

// WriteComparisonCSV writes the DeltaTable as CSV for a spreadsheet: one
// line per figure with its result key and label, each file's value
// (under its label) and Δ% against the first (under "LABEL delta_pct"),
// as plain numbers ("-" where a file lacks the figure). Significance
// marks stay in the text table and the JSON.
func WriteComparisonCSV(w io.Writer, c *Comparison) error {
	return table.WriteCSV(w, c.DeltaTable(nil, false).Data())
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
	// Significance has one entry per file (null for the first and for
	// changes not judged); absent when nothing was judged.
	Significance []*compareJSONSig `json:"significance,omitempty"`
}

// compareJSONSig is one judged change.
type compareJSONSig struct {
	Method      string   `json:"method"`
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
	Refused     string   `json:"refused,omitempty"`
	// RelLow and RelHigh bound the bootstrap interval of the relative
	// change in percent; absent for Mann-Whitney.
	RelLow  *float64 `json:"delta_pct_low,omitempty"`
	RelHigh *float64 `json:"delta_pct_high,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteCompareJSON writes the comparison as JSON: the files (path, label,
// note, interrupted), one row per present figure with each file's value
// and Δ%, and the reasons of the crossed bounds.
func WriteCompareJSON(w io.Writer, files []*CompareFile, crossed []Crossing) error {
	return WriteComparisonJSON(w, &Comparison{Files: files}, crossed)
}

// WriteComparisonJSON is WriteCompareJSON with each row's significance
// (method, p, significant, the bootstrap interval of the relative change)
// where the comparison judged it.
func WriteComparisonJSON(w io.Writer, c *Comparison, crossed []Crossing) error {
	files := c.Files
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
			var sp *compareJSONSig
			if sg, ok := c.Significance(i, row.Key); ok {
				sp = &compareJSONSig{Method: sg.Method, P: finite(sg.P), Significant: sg.Significant, Refused: sg.Refused,
					RelLow: finite(sg.RelLow * 100), RelHigh: finite(sg.RelHigh * 100)}
			}
			r.Significance = append(r.Significance, sp)
		}
		if !c.Judged() {
			r.Significance = nil
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
