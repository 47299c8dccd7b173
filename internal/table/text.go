package table

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// Style is a text layout. The zero Style is the common one: columns two
// spaces apart, each as wide as its widest cell, the header placed by
// the column's Align and each cell by its Num (numbers right).
//
// The options keep the layouts llmbench has printed all along, byte for
// byte (their goldens pin them); text/tabwriter gives only the Right one
// (see TestRightIsTabwriter), so this one aligner serves them all.
type Style struct {
	// Gap separates columns; "" = two spaces.
	Gap string
	// Lead goes before the first column.
	Lead string
	// Right right-aligns every cell and header, as text/tabwriter's
	// AlignRight does.
	Right bool
	// Fixed pads each cell on its own to its column's Width (printf's
	// rule) instead of to the widest cell.
	Fixed bool
	// TrimRight drops the spaces at the end of each line.
	TrimRight bool
	// NoHeader leaves the header line out.
	NoHeader bool
}

// text is a cell's text form: a crossed bound gets a "!".
func (c *Cell) text() string {
	if strings.Contains(c.Mark, Crossed) {
		return c.Text + "!"
	}
	return c.Text
}

// Lines lays t out, one string per line without newline: the header
// line, then one line per row. Title and notes are the caller's layout.
func Lines(t *Table, st Style) []string {
	gap := st.Gap
	if gap == "" {
		gap = "  "
	}
	widths := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		widths[i] = c.Width
		if !st.Fixed {
			widths[i] = 0
			if !st.NoHeader {
				widths[i] = utf8.RuneCountInString(c.Header)
			}
			for _, r := range t.Rows {
				widths[i] = max(widths[i], utf8.RuneCountInString(r[i].text()))
			}
		}
	}
	line := func(text func(i int) (string, bool)) string {
		var b strings.Builder
		b.WriteString(st.Lead)
		for i := range t.Columns {
			if i > 0 {
				b.WriteString(gap)
			}
			s, right := text(i)
			pad := strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(s)))
			if right || st.Right {
				b.WriteString(pad + s)
			} else {
				b.WriteString(s + pad)
			}
		}
		if st.TrimRight {
			return strings.TrimRight(b.String(), " ")
		}
		return b.String()
	}
	var out []string
	if !st.NoHeader {
		out = append(out, line(func(i int) (string, bool) { return t.Columns[i].Header, t.Columns[i].Align == Right }))
	}
	for _, r := range t.Rows {
		out = append(out, line(func(i int) (string, bool) { return r[i].text(), r[i].Num }))
	}
	return out
}

// WriteText writes Lines, each with a newline.
func WriteText(w io.Writer, t *Table, st Style) error {
	bw := bufio.NewWriter(w)
	for _, l := range Lines(t, st) {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Center centres s in width characters with fill, an odd leftover going
// right: Python's "{:fill^width}".format(s) and Rust's alike, the rule of
// vLLM's section headers. s wider than width is returned as is.
func Center(s string, fill byte, width int) string {
	n := utf8.RuneCountInString(s)
	if n >= width {
		return s
	}
	left := (width - n) / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), width-n-left)
}
