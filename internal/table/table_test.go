package table

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"
)

// sample is a small table with words, figures, a crossed cell and a
// non-ASCII header (widths count runes, not bytes).
func sample() *Table {
	return &Table{
		Title: "Figures",
		Columns: []Column{
			{Key: "metric", Header: "Metric"},
			{Key: "a", Header: "A", Align: Right},
			{Key: "delta", Header: "Δ%", Align: Right},
		},
		Rows: [][]Cell{
			{Words("TTFT"), Number("12.50", 12.5), {Text: "+10.00%", Num: true, Mark: Crossed}},
			{Words("Error rate"), Figure("-"), Figure("-")},
		},
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		st    Style
		table func() *Table
		want  []string
	}{
		{"default: words left, figures right, two spaces", Style{}, sample, []string{
			"Metric          A        Δ%",
			"TTFT        12.50  +10.00%!",
			"Error rate      -         -",
		}},
		{"lead and right, as tabwriter", Style{Lead: "  ", Right: true}, sample, []string{
			"      Metric      A        Δ%",
			"        TTFT  12.50  +10.00%!",
			"  Error rate      -         -",
		}},
		{"no header", Style{NoHeader: true}, sample, []string{
			"TTFT        12.50  +10.00%!",
			"Error rate      -         -",
		}},
		{"fixed widths pad each cell alone", Style{Fixed: true, Gap: " "}, func() *Table {
			return &Table{
				Columns: []Column{{Header: "load", Width: 6}, {Header: "n", Width: 4, Align: Right}, {Header: "flags"}},
				Rows: [][]Cell{
					{Words("1"), Figure("20"), Words("")},
					{Words("1000000"), Figure("123456"), Words("H")},
				},
			}
		}, []string{
			"load      n flags",
			"1        20 ",
			"1000000 123456 H",
		}},
		{"trim right", Style{TrimRight: true}, func() *Table {
			return &Table{
				Columns: []Column{{Header: "Candidate"}, {Header: "Verdict"}},
				Rows:    [][]Cell{{Words("a"), Words("ok")}, {Words("b"), Words("RECOMMENDED")}},
			}
		}, []string{
			"Candidate  Verdict",
			"a          ok",
			"b          RECOMMENDED",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Lines(tt.table(), tt.st)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestRightIsTabwriter: the Right style with a two-space lead gives what
// text/tabwriter's AlignRight gave for tab-terminated cells (the plan's
// tables were printed so).
func TestRightIsTabwriter(t *testing.T) {
	t.Parallel()
	tb := &Table{Columns: []Column{{Header: "Time"}, {Header: "users"}, {Header: "sim–batch8"}}}
	for _, r := range [][]string{{"00:00", "6", "1"}, {"05:00", "9", "2 (5.0)"}, {"23:00", "", "12"}} {
		tb.Rows = append(tb.Rows, []Cell{Words(r[0]), Figure(r[1]), Figure(r[2])})
	}
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', tabwriter.AlignRight)
	tw.Write([]byte(strings.Join(tb.Headers(), "\t") + "\t\n"))
	for _, r := range tb.Rows {
		tw.Write([]byte(r[0].Text + "\t" + r[1].Text + "\t" + r[2].Text + "\t\n"))
	}
	tw.Flush()
	var got bytes.Buffer
	if err := WriteText(&got, tb, Style{Lead: "  ", Right: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), got.String()); diff != "" {
		t.Errorf("(-tabwriter +table)\n%s", diff)
	}
}

func TestSelectAndDropEmpty(t *testing.T) {
	t.Parallel()
	s := sample().Select("delta", "metric", "nope")
	if got := strings.Join(s.Headers(), ","); got != "Δ%,Metric" {
		t.Errorf("Select headers %s", got)
	}
	if s.Rows[1][1].Text != "Error rate" || s.Title != "Figures" {
		t.Errorf("Select rows %+v", s.Rows)
	}
	tb := sample()
	tb.Rows = tb.Rows[1:] // "-" everywhere but the metric
	d := tb.DropEmpty("-", func(i int) bool { return i == 2 })
	if got := strings.Join(d.Headers(), ","); got != "Metric,Δ%" {
		t.Errorf("DropEmpty headers %s", got)
	}
}

func TestCenter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s     string
		fill  byte
		width int
		want  string
	}{
		{" ab ", '=', 10, "=== ab ==="},
		{"abc", '-', 10, "---abc----"}, // the odd one goes right
		{"Δ", '-', 4, "-Δ--"},
		{"too wide", '=', 4, "too wide"},
	}
	for _, tt := range tests {
		if got := Center(tt.s, tt.fill, tt.width); got != tt.want {
			t.Errorf("Center(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

func TestHTML(t *testing.T) {
	t.Parallel()
	tb := sample()
	tb.Rows = append(tb.Rows, []Cell{Words("<b>"), {Text: "pass", Mark: Pass}, {Text: "x&y", Num: true}})
	got, err := HTML(tb)
	if err != nil {
		t.Fatal(err)
	}
	want := `<table>
<thead><tr><th>Metric</th><th>A</th><th>Δ%</th></tr></thead>
<tbody>
<tr><td>TTFT</td><td class="num">12.50</td><td class="num crossed">&#43;10.00%</td></tr>
<tr><td>Error rate</td><td class="num">-</td><td class="num">-</td></tr>
<tr><td>&lt;b&gt;</td><td class="pass">pass</td><td class="num">x&amp;y</td></tr>
</tbody>
</table>`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestCSV(t *testing.T) {
	t.Parallel()
	tb := &Table{Columns: []Column{{Key: "load"}, {Header: "SLA term"}}, Rows: [][]Cell{
		{Number("1", 1), Words("p99_ttft_ms<500,error_rate<0.01")},
		{Figure("2"), Words(`say "hi"`)},
	}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tb); err != nil {
		t.Fatal(err)
	}
	want := "load,SLA term\n1,\"p99_ttft_ms<500,error_rate<0.01\"\n2,\"say \"\"hi\"\"\"\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	tb := sample()
	tb.Rows = append(tb.Rows, []Cell{Words("<none>"), Number("inf", math.Inf(1)), Figure("")})
	tb.Notes = []string{"n"}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, tb); err != nil {
		t.Fatal(err)
	}
	want := `{
  "title": "Figures",
  "columns": [
    {
      "key": "metric",
      "header": "Metric"
    },
    {
      "key": "a",
      "header": "A"
    },
    {
      "key": "delta",
      "header": "Δ%"
    }
  ],
  "rows": [
    {
      "metric": "TTFT",
      "a": 12.5,
      "delta": "+10.00%"
    },
    {
      "metric": "Error rate",
      "a": "-",
      "delta": "-"
    },
    {
      "metric": "<none>",
      "a": null,
      "delta": ""
    }
  ],
  "notes": [
    "n"
  ]
}
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestLabelled: a section is Python's "{:-^50}" title, then
// "{:<40} {:<10}" per row (values padded, long ones not cut).
func TestLabelled(t *testing.T) {
	t.Parallel()
	tb := NewLabelled("Cost (approximate)")
	tb.Add("Price source:", "--price-per-hour")
	tb.Add("Cost of the run (USD):", "0.0505")
	want := []string{
		"----------------Cost (approximate)----------------",
		"Price source:                            --price-per-hour",
		"Cost of the run (USD):                   0.0505    ",
	}
	if diff := cmp.Diff(want, SectionLines(tb, '-')); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestDataAndWithout(t *testing.T) {
	t.Parallel()
	d := sample().Without("delta").Data()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	// 12.50 has a value (12.5); "-" has none and stays.
	if want := "metric,a\nTTFT,12.5\nError rate,-\n"; buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if sample().Rows[0][1].Text != "12.50" {
		t.Error("Data changed the table it copied")
	}
}
