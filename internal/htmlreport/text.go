package htmlreport

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/table"
)

// textBins and textBarWidth size the text histograms.
const (
	textBins     = 10
	textBarWidth = 40
)

// WriteText writes the page for a terminal: each section's notes and
// tables, and its histograms as rows of "#" (no browser needed, e.g. over
// SSH). Line charts are left out.
func WriteText(w io.Writer, p *Page) error {
	bw := bufio.NewWriter(w)
	for i, s := range p.Sections {
		if i > 0 {
			bw.WriteString("\n")
		}
		fmt.Fprintf(bw, "== %s ==\n", s.Title)
		for _, f := range s.Files {
			fmt.Fprintln(bw, f)
		}
		if s.Verdict != "" {
			fmt.Fprintf(bw, "\nVerdict: %s\n", s.Verdict)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(bw, "Note: %s\n", n)
		}
		for _, c := range s.Crossed {
			fmt.Fprintf(bw, "fail-if: %s\n", c)
		}
		for _, t := range s.Tables {
			writeTextTable(bw, &t)
		}
		for i := range s.Charts {
			if c := &s.Charts[i]; len(c.Bars) > 0 {
				writeTextHistogram(bw, c)
			}
		}
		for _, t := range s.After {
			writeTextTable(bw, &t)
		}
	}
	return bw.Flush()
}

// writeTextTable writes a table's title and its lines (numbers right).
func writeTextTable(w *bufio.Writer, t *table.Table) {
	fmt.Fprintf(w, "\n%s\n", t.Title)
	for _, l := range table.Lines(t, table.Style{}) {
		w.WriteString(l)
		w.WriteByte('\n')
	}
}

// writeTextHistogram re-bins a histogram's bars into textBins rows and
// draws each as a bar of "#" scaled to the largest.
func writeTextHistogram(w *bufio.Writer, c *Chart) {
	lo, hi := c.Bars[0].Min, c.Bars[len(c.Bars)-1].Max
	counts := make([]int, textBins)
	width := (hi - lo) / textBins
	for _, b := range c.Bars {
		i := 0
		if width > 0 {
			i = min(int(((b.Min+b.Max)/2-lo)/width), textBins-1)
		}
		counts[i] += b.Count
	}
	peak := 0
	for _, n := range counts {
		peak = max(peak, n)
	}
	fmt.Fprintf(w, "\n%s — %s\n", c.Title, c.XLabel)
	for i, n := range counts {
		bar := 0
		if peak > 0 {
			bar = (n*textBarWidth + peak - 1) / peak
		}
		fmt.Fprintf(w, "%10.2f – %10.2f | %-*s %d\n", lo+float64(i)*width, lo+float64(i+1)*width, textBarWidth, strings.Repeat("#", bar), n)
	}
	for _, m := range c.VMarks {
		fmt.Fprintf(w, "  %s: %.2f\n", m.Label, m.At)
	}
}
