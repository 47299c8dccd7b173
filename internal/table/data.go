package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
)

// key is a column's machine name: its Key, else its Header.
func (c *Column) key() string {
	if c.Key != "" {
		return c.Key
	}
	return c.Header
}

// WriteCSV writes t as CSV (RFC 4180, encoding/csv): a line of column
// keys, then each row's cell texts. Title and notes are left out.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for i := range t.Columns {
		head[i] = t.Columns[i].key()
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		line := make([]string, len(r))
		for i := range r {
			line[i] = r[i].Text
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// row is one row in JSON: cells under their column keys, in column order.
type row struct {
	cols  []Column
	cells []Cell
}

// MarshalJSON writes the row's cells as an object in column order: a
// cell with a Value as a number (null when not finite), else its text.
func (r row) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range r.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := plain(&b, r.cols[i].key()); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		var v any = r.cells[i].Text
		if p := r.cells[i].Value; p != nil {
			v = *p
			if math.IsNaN(*p) || math.IsInf(*p, 0) {
				v = nil
			}
		}
		if err := plain(&b, v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// plain appends v's JSON without escaping "<", ">" and "&" (SLA terms
// read "p99_ttft_ms<500").
func plain(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// WriteJSON writes t as one indented JSON object: {"title", "columns"
// (key and header of each), "rows" (one object per row, see row), "notes"}.
func WriteJSON(w io.Writer, t *Table) error {
	type col struct {
		Key    string `json:"key"`
		Header string `json:"header"`
	}
	out := struct {
		Title   string   `json:"title"`
		Columns []col    `json:"columns"`
		Rows    []row    `json:"rows"`
		Notes   []string `json:"notes"`
	}{Title: t.Title, Columns: []col{}, Rows: []row{}, Notes: t.Notes}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for i := range t.Columns {
		out.Columns = append(out.Columns, col{t.Columns[i].key(), t.Columns[i].Header})
	}
	for _, r := range t.Rows {
		out.Rows = append(out.Rows, row{t.Columns, r})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
