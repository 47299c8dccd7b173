package report

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
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

// choiceColumns are the table's columns; the need columns only appear
// with a need.
func choiceColumns(need bool) []string {
	cols := []string{"Candidate", "Load kind", "Max load under SLA", "req/min", "Out tok/s", "User TPS", "P10 TPS",
		"$/hour", "$/1M out", "CPU %", "GPU %", "GPU mem %"}
	if need {
		cols = append(cols, "Capacity", "Instances", "Total $/hour", "$/month")
	}
	return append(cols, "Verdict")
}

// ChoiceTableLines returns compare's table over sweeps: one row per
// candidate with its figures at the largest load under the SLA (cost
// figures at that load, utilisation there when read), with a need the
// instances it takes and what they cost, and a verdict column
// (RECOMMENDED, ok, or why not); then the need, the answer in words and
// the notes. Unknown figures are "-"; a column no candidate has a figure
// for is left out.
func ChoiceTableLines(ch *capacity.Choice) []string {
	table := [][]string{choiceColumns(ch.Need != nil)}
	for i := range ch.Candidates {
		table = append(table, choiceRow(ch, &ch.Candidates[i]))
	}
	var out []string
	if ch.Need != nil {
		out = append(out, "Need: "+ch.Need.String()+" within each sweep's SLA")
	}
	out = append(out, alignTable(dropEmptyColumns(table))...)
	out = append(out, "Answer: "+ch.Summary)
	for _, n := range ch.Notes {
		out = append(out, "Note: "+n)
	}
	return out
}

// choiceRow is one candidate's table row.
func choiceRow(ch *capacity.Choice, c *capacity.Candidate) []string {
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
	row := []string{c.Label, string(c.LoadKind), ml, fix(c.MaxInvocationsPerMinute, 1), fix(c.OutputThroughput, 1),
		fix(c.MeanPerUserTPS, 1), fix(c.P10PerUserTPS, 1), fix(c.USDPerHour, 3), fix(c.USDPer1MOutputTokens, 3),
		fix(cpu, 1), fix(gpu, 1), fix(gmem, 1)}
	if ch.Need != nil {
		inst := "-"
		if c.Instances != nil {
			inst = strconv.Itoa(*c.Instances)
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
	return append(row, verdict)
}

// dropEmptyColumns leaves out the columns in which no candidate has a
// figure (utilisation when CloudWatch was not read, cost when nothing is
// priced).
func dropEmptyColumns(table [][]string) [][]string {
	keep := make([]bool, len(table[0]))
	for i := range keep {
		keep[i] = i == 0 || i == len(keep)-1
		for _, line := range table[1:] {
			keep[i] = keep[i] || line[i] != "-"
		}
	}
	out := make([][]string, len(table))
	for j, line := range table {
		for i, c := range line {
			if keep[i] {
				out[j] = append(out[j], c)
			}
		}
	}
	return out
}

// fix formats an optional figure with prec decimals; "-" when unknown.
func fix(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

// alignTable left-aligns the first column and right-aligns numbers,
// two spaces apart; the last column (words) is left-aligned.
func alignTable(table [][]string) []string {
	widths := make([]int, len(table[0]))
	for _, line := range table {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	out := make([]string, 0, len(table))
	for _, line := range table {
		var b strings.Builder
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			case i == len(line)-1 || i == 1:
				b.WriteString("  " + c + pad)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// WriteChoiceTable writes ChoiceTableLines.
func WriteChoiceTable(w io.Writer, ch *capacity.Choice) error {
	return writeLines(w, ChoiceTableLines(ch))
}
