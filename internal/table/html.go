package table

import (
	"bytes"
	"html/template"
	"strings"
)

// htmlTable is the HTML form; html/template escapes the text (a "+" in a
// Δ% becomes "&#43;", as it always has on the pages).
var htmlTable = template.Must(template.New("table").Funcs(template.FuncMap{"class": (*Cell).class}).Parse(
	`<table>
<thead><tr>{{range .Columns}}<th>{{.Header}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{with class .}} class="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>`))

// class is the cell's CSS class: "num" for a figure, then its Mark.
func (c *Cell) class() string {
	var cls []string
	if c.Num {
		cls = append(cls, "num")
	}
	if c.Mark != "" {
		cls = append(cls, c.Mark)
	}
	return strings.Join(cls, " ")
}

// HTML is t as an HTML <table> element (the title is the page's to
// place): a header row, then one row per row, each cell with its class
// ("num", "crossed", "pass", "fail") for the page's stylesheet.
func HTML(t *Table) (template.HTML, error) {
	var buf bytes.Buffer
	if err := htmlTable.Execute(&buf, t); err != nil {
		return "", err
	}
	// html/template escaped every cell and header above.
	return template.HTML(buf.String()), nil
}
