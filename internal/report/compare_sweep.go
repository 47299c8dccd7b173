package report

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/table"
)

// SweepFile is a sweep file read for comparison (savedfile.ReadSweep
// reads the sweep).
type SweepFile struct {
	Path  string
	Sweep *capacity.Sweep
}

// SweepCandidates turns sweep files into compare's candidates, labelled
// by each sweep's own label (its --label at sweep time), else by the file
// name without "sweep-" and ".json"; a label used twice gets the file
// name instead.
func SweepCandidates(files []*SweepFile) []capacity.Candidate {
	labels := make([]string, len(files))
	seen := map[string]int{}
	for i, f := range files {
		labels[i] = f.Sweep.Label
		if labels[i] == "" {
			labels[i] = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f.Path), "sweep-"), ".json")
		}
		seen[labels[i]]++
	}
	out := make([]capacity.Candidate, len(files))
	for i, f := range files {
		if seen[labels[i]] > 1 {
			labels[i] = f.Path
		}
		out[i] = capacity.CandidateOf(labels[i], f.Path, f.Sweep)
	}
	return out
}

// WriteChoice writes compare's answer over sweep files in format: "json"
// (WriteChoiceJSON), "csv" (WriteChoiceCSV), else the table
// (WriteChoiceTable).
func WriteChoice(w io.Writer, ch *capacity.Choice, format string) error {
	switch format {
	case "json":
		return WriteChoiceJSON(w, ch)
	case "csv":
		return WriteChoiceCSV(w, ch)
	}
	return WriteChoiceTable(w, ch)
}

// WriteChoiceJSON writes compare's answer over sweeps as JSON: need,
// recommendation ({"label", "instances", "cost_per_hour",
// "cost_per_month"} or null), every candidate under candidates, the
// summary in words and the notes.
func WriteChoiceJSON(w io.Writer, ch *capacity.Choice) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ch); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// choiceColumns are the table's columns (key, header); the need columns
// only appear with a need.
func choiceColumns(need bool) [][2]string {
	cols := [][2]string{{"label", "Candidate"}, {"load_kind", "Load kind"}, {"max_load", "Max load under SLA"},
		{"max_invocations_per_minute", "req/min"}, {metrics.KeyOutputThroughput, "Out tok/s"}, {"mean_per_user_tps", "User TPS"},
		{"p10_per_user_tps", "P10 TPS"}, {"usd_per_hour", "$/hour"}, {"usd_per_1m_output_tokens", "$/1M out"},
		{"cpu_pct", "CPU %"}, {"gpu_pct", "GPU %"}, {"gpu_memory_pct", "GPU mem %"}}
	if need {
		cols = append(cols, [2]string{"capacity", "Capacity"}, [2]string{"instances", "Instances"},
			[2]string{"cost_per_hour", "Total $/hour"}, [2]string{"cost_per_month", "$/month"})
	}
	return append(cols, [2]string{"verdict", "Verdict"})
}

// ChoiceTable is compare's table over sweeps: one row per candidate with
// its figures at the largest load under the SLA (cost figures at that
// load, utilisation there when read), with a need the instances it takes
// and what they cost, and a verdict column (RECOMMENDED, ok, or why not).
// Unknown figures are "-"; a column no candidate has a figure for is
// left out (utilisation when CloudWatch was not read, cost when nothing
// is priced).
func ChoiceTable(ch *capacity.Choice) *table.Table {
	t := &table.Table{Title: "Candidates"}
	for _, c := range choiceColumns(ch.Need != nil) {
		align := table.Right
		if c[0] == "label" || c[0] == "load_kind" || c[0] == "verdict" {
			align = table.Left
		}
		t.AddColumn(c[0], c[1], align)
	}
	for i := range ch.Candidates {
		t.Rows = append(t.Rows, choiceRow(ch, &ch.Candidates[i]))
	}
	last := len(t.Columns) - 1
	return t.DropEmpty("-", func(i int) bool { return i == 0 || i == last })
}

// ChoiceTableLines returns the need, ChoiceTable (words left, figures
// right, no trailing spaces), the answer in words and the notes.
func ChoiceTableLines(ch *capacity.Choice) []string {
	var out []string
	if ch.Need != nil {
		out = append(out, "Need: "+ch.Need.String()+" within each sweep's SLA")
	}
	out = append(out, table.Lines(ChoiceTable(ch), table.Style{TrimRight: true})...)
	out = append(out, "Answer: "+ch.Summary)
	for _, n := range ch.Notes {
		out = append(out, "Note: "+n)
	}
	return out
}

// choiceRow is one candidate's table row.
func choiceRow(ch *capacity.Choice, c *capacity.Candidate) []table.Cell {
	ml := "never"
	if c.SLA == "" {
		ml = "no SLA"
	}
	if c.MaxLoad != nil {
		ml = strconv.FormatFloat(*c.MaxLoad, 'f', -1, 64)
	}
	var cpu, gpu, gmem *float64
	if u := c.Utilization; u != nil {
		cpu, gpu, gmem = u.CPUPct, u.GPUPct, u.GPUMemoryPct
	}
	row := []table.Cell{table.Words(c.Label), table.Words(string(c.LoadKind)), table.Figure(ml),
		fix(c.MaxInvocationsPerMinute, 1), fix(c.OutputThroughput, 1), fix(c.MeanPerUserTPS, 1), fix(c.P10PerUserTPS, 1),
		fix(c.USDPerHour, 3), fix(c.USDPer1MOutputTokens, 3), fix(cpu, 1), fix(gpu, 1), fix(gmem, 1)}
	if c.MaxLoad != nil {
		row[2].Value = c.MaxLoad
	}
	if ch.Need != nil {
		inst := table.Figure("-")
		if c.Instances != nil {
			inst = table.Number(strconv.Itoa(*c.Instances), float64(*c.Instances))
		}
		row = append(row, fix(c.Capacity, 2), inst, fix(c.CostPerHour, 2), fix(c.CostPerMonth, 2))
	}
	verdict := "ok"
	switch {
	case ch.Recommendation != nil && ch.Recommendation.Label == c.Label:
		verdict = "RECOMMENDED"
	case c.Reason != "":
		verdict = c.Reason
	}
	return append(row, table.Words(verdict))
}

// fix is an optional figure with prec decimals; "-" when unknown.
func fix(v *float64, prec int) table.Cell {
	if v == nil {
		return table.Figure("-")
	}
	return table.Number(strconv.FormatFloat(*v, 'f', prec, 64), *v)
}

// WriteChoiceCSV writes ChoiceTable as CSV, figures as plain numbers.
func WriteChoiceCSV(w io.Writer, ch *capacity.Choice) error {
	return table.WriteCSV(w, ChoiceTable(ch).Data())
}

// WriteChoiceTable writes ChoiceTableLines.
func WriteChoiceTable(w io.Writer, ch *capacity.Choice) error {
	return writeLines(w, ChoiceTableLines(ch))
}
