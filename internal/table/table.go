// Package table is the one model of a table that llmbench shows: a title,
// columns, rows of cells and notes, built once from the figures and
// rendered as aligned text, HTML, CSV or JSON (text.go, html.go, data.go).
//
// It knows nothing of runs, sweeps or plans: builders in those packages
// fill a Table, and the page layouts (htmlreport, the CLI's writers)
// place it. vLLM's byte-exact console table and result JSON are not
// tables of this kind and do not go through it (internal/report).
package table

import "strconv"

// Align is where text sits in its column.
type Align uint8

// Alignments.
const (
	Left Align = iota
	Right
)

// Column is one column: Key names it in CSV and JSON, Header in text and
// HTML.
type Column struct {
	Key    string
	Header string
	// Align places the header in text; a cell's own place is its Num.
	Align Align
	// Width is a fixed text width for Style.Fixed tables: each cell is
	// padded on its own to Width, as printf's %-Ns or %Ns do (0 = not
	// padded), never to the widest cell of the column.
	Width int
}

// Cell is one cell.
type Cell struct {
	Text string
	// Value is the figure behind Text, written as a number in JSON; nil
	// for words.
	Value *float64
	// Num marks a figure: right-aligned in text and HTML.
	Num bool
	// Mark is an emphasis: "crossed" (a --fail-if bound), "pass", "fail",
	// or "". It is the cell's HTML class beside "num"; text shows a
	// crossed cell with a trailing "!".
	Mark string
}

// Mark values.
const (
	Crossed = "crossed"
	Pass    = "pass"
	Fail    = "fail"
)

// Table is a titled grid. Every row has one cell per column.
type Table struct {
	Title   string
	Columns []Column
	Rows    [][]Cell
	// Notes are lines the reader needs under the table.
	Notes []string
}

// Words is a cell of text.
func Words(s string) Cell { return Cell{Text: s} }

// Figure is a numeric cell whose text was already formatted.
func Figure(text string) Cell { return Cell{Text: text, Num: true} }

// Number is a numeric cell with its value, for JSON.
func Number(text string, v float64) Cell { return Cell{Text: text, Num: true, Value: &v} }

// Headers returns the columns' headers.
func (t *Table) Headers() []string {
	h := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		h[i] = c.Header
	}
	return h
}

// AddColumn appends a column.
func (t *Table) AddColumn(key, header string, align Align) {
	t.Columns = append(t.Columns, Column{Key: key, Header: header, Align: align})
}

// Select returns a copy of t with the columns whose keys are given, in
// that order; unknown keys are skipped. Builders make one table with
// every column and each format shows its own selection.
func (t *Table) Select(keys ...string) *Table {
	idx := map[string]int{}
	for i, c := range t.Columns {
		idx[c.Key] = i
	}
	var pick []int
	for _, k := range keys {
		if i, ok := idx[k]; ok {
			pick = append(pick, i)
		}
	}
	return t.pick(pick)
}

// pick is t with the columns at the given indexes.
func (t *Table) pick(pick []int) *Table {
	out := &Table{Title: t.Title, Notes: t.Notes}
	for _, i := range pick {
		out.Columns = append(out.Columns, t.Columns[i])
	}
	for _, r := range t.Rows {
		row := make([]Cell, len(pick))
		for j, i := range pick {
			row[j] = r[i]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// Data returns a copy of t for machine readers (CSV): a cell with a
// Value shows it in Go's shortest form ("1.5", "1e+06"), every other cell
// keeps its text.
func (t *Table) Data() *Table {
	out := *t
	out.Rows = make([][]Cell, len(t.Rows))
	for i, r := range t.Rows {
		out.Rows[i] = make([]Cell, len(r))
		for j, c := range r {
			if c.Value != nil {
				c.Text = strconv.FormatFloat(*c.Value, 'g', -1, 64)
			}
			out.Rows[i][j] = c
		}
	}
	return &out
}

// Without returns a copy of t without the columns whose keys are given.
func (t *Table) Without(keys ...string) *Table {
	drop := map[string]bool{}
	for _, k := range keys {
		drop[k] = true
	}
	var pick []int
	for i, c := range t.Columns {
		if !drop[c.Key] {
			pick = append(pick, i)
		}
	}
	return t.pick(pick)
}

// DropEmpty returns t without the columns in which every cell reads
// empty (e.g. "-" for a figure no row has); keep says which columns stay
// regardless.
func (t *Table) DropEmpty(empty string, keep func(i int) bool) *Table {
	var keys []int
	for i := range t.Columns {
		used := keep(i)
		for _, r := range t.Rows {
			used = used || r[i].Text != empty
		}
		if used {
			keys = append(keys, i)
		}
	}
	return t.pick(keys)
}
