package table

// Labelled is the layout of vLLM's console sections and of llmbench's
// sections printed beside them: a label padded to 40 characters, a
// space, the value padded to 10 — Python's "{:<40} {:<10}" — and no
// header line.
var Labelled = Style{Gap: " ", Fixed: true, NoHeader: true}

// LabelWidth and ValueWidth are Labelled's column widths; SectionWidth
// is the width of the sections' headers and closing lines.
const (
	LabelWidth   = 40
	ValueWidth   = 10
	SectionWidth = 50
)

// NewLabelled is an empty table of label and value for the Labelled
// layout.
func NewLabelled(title string) *Table {
	return &Table{Title: title, Columns: []Column{
		{Key: "label", Header: "Figure", Width: LabelWidth},
		{Key: "value", Header: "Value", Width: ValueWidth},
	}}
}

// Add appends a row of label and value.
func (t *Table) Add(label, value string) {
	t.Rows = append(t.Rows, []Cell{Words(label), Words(value)})
}

// SectionLines is t as a section of the console: its title centred in
// SectionWidth characters of fill, then its Labelled lines.
func SectionLines(t *Table, fill byte) []string {
	return append([]string{Center(t.Title, fill, SectionWidth)}, Lines(t, Labelled)...)
}
