package capacity

import (
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/table"
)

// StepView is a format that shows the sweep's steps; each shows its own
// columns of the one step table (StepTable).
type StepView int

// Step views.
const (
	// StepText is the sweep's console table (WriteText): fixed printf
	// widths, figures with one or two decimals, SLA as pass, FAIL, ? or -,
	// flags H and L, cost and utilisation columns when the sweep has them.
	StepText StepView = iota
	// StepCSV is the CSV (WriteCSV): every figure under its JSON key in
	// Go's shortest form, one column per SLA term, the result file, the
	// cost and utilisation columns when the sweep has them.
	StepCSV
	// StepPage is the HTML sweep page's table: load and completed, then
	// the figures any step has with two decimals, then the SLA verdict
	// (pass, fail, unresolved; "(harness-limited)" appended).
	StepPage
)

// stepColumn is a column of the step table: its header, text width and
// alignment, and a step's cell.
type stepColumn struct {
	table.Column
	cell func(r *Row) table.Cell
}

// StepTable is the sweep's steps, one row per step, with the columns of
// view v.
func StepTable(s *Sweep, v StepView) *table.Table {
	var cols []stepColumn
	switch v {
	case StepText:
		cols = textColumns(s)
	case StepCSV:
		return csvTable(s)
	default:
		cols = pageColumns(s)
	}
	t := &table.Table{Title: "Steps"}
	for _, c := range cols {
		t.Columns = append(t.Columns, c.Column)
	}
	for i := range s.Steps {
		row := make([]table.Cell, len(cols))
		for j, c := range cols {
			row[j] = c.cell(&s.Steps[i])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// TextStyle is the console table's layout: one space apart, each cell
// padded to its column's printf width.
var TextStyle = table.Style{Gap: " ", Fixed: true}

// fixed is a right-aligned text column of width w showing format's
// rendering of get.
func fixed(key, head string, w int, format string, get func(r *Row) float64) stepColumn {
	return stepColumn{table.Column{Key: key, Header: head, Align: table.Right, Width: w},
		func(r *Row) table.Cell { v := get(r); return table.Number(fmt.Sprintf(format, v), v) }}
}

// textColumns are the console table's columns.
func textColumns(s *Sweep) []stepColumn {
	flagsWidth := 0
	if s.Pricing != nil || hasUtilization(s) {
		flagsWidth = 5 // padded only when columns follow
	}
	cols := []stepColumn{
		{table.Column{Key: "load", Header: string(s.LoadKind), Width: 12},
			func(r *Row) table.Cell { return table.Words(strconv.FormatFloat(r.Load, 'f', -1, 64)) }},
		{table.Column{Key: metrics.KeyCompleted, Header: "completed", Align: table.Right, Width: 9},
			func(r *Row) table.Cell { return table.Number(strconv.Itoa(r.Completed), float64(r.Completed)) }},
		fixed(metrics.KeyRequestThroughput, "req/s", 9, "%.2f", func(r *Row) float64 { return r.RequestThroughput }),
		fixed(metrics.KeyOutputThroughput, "out tok/s", 11, "%.1f", func(r *Row) float64 { return r.OutputThroughput }),
		fixed(metrics.KeyMeanTTFT, "TTFT ms", 9, "%.1f", func(r *Row) float64 { return r.MeanTTFTMs }),
		fixed(metrics.KeyP99TTFT, "p99 TTFT", 9, "%.1f", func(r *Row) float64 { return r.P99TTFTMs }),
		fixed(metrics.KeyMeanITL, "ITL ms", 8, "%.1f", func(r *Row) float64 { return r.MeanITLMs }),
		fixed(metrics.KeyP99ITL, "p99 ITL", 8, "%.1f", func(r *Row) float64 { return r.P99ITLMs }),
		fixed(metrics.KeyMeanTPOT, "TPOT ms", 8, "%.1f", func(r *Row) float64 { return r.MeanTPOTMs }),
		fixed("mean_per_user_tps", "user TPS", 8, "%.1f", func(r *Row) float64 { return r.MeanPerUserTPS }),
		fixed("p10_per_user_tps", "p10 TPS", 8, "%.1f", func(r *Row) float64 { return r.P10PerUserTPS }),
		fixed("error_pct", "err %", 7, "%.2f", func(r *Row) float64 { return 100 * r.ErrorRate }),
		{table.Column{Key: "sla", Header: "SLA", Width: 5}, func(r *Row) table.Cell { return table.Words(slaText(r)) }},
		{table.Column{Key: "flags", Header: "flags", Width: flagsWidth}, func(r *Row) table.Cell { return table.Words(flagsText(r)) }},
	}
	if s.Pricing != nil {
		cols = append(cols,
			moneyColumn("usd_per_hour", "$/hour", 8, 3, func(r *Row) *float64 { return r.USDPerHour }),
			moneyColumn("usd_per_request", "$/request", 10, 6, func(r *Row) *float64 { return r.USDPerRequest }),
			moneyColumn("usd_per_1m_output_tokens", "$/1M out", 9, 3, func(r *Row) *float64 { return r.USDPer1MOutputTokens }))
	}
	if hasUtilization(s) {
		for _, c := range utilColumns {
			get := c.get
			cols = append(cols, moneyColumn(c.csv, c.head, 9, 1, func(r *Row) *float64 {
				if r.Utilization == nil {
					return nil
				}
				return get(r.Utilization)
			}))
		}
	}
	return cols
}

// moneyColumn is a right-aligned optional figure with prec decimals, "-"
// when unknown.
func moneyColumn(key, head string, w, prec int, get func(r *Row) *float64) stepColumn {
	return stepColumn{table.Column{Key: key, Header: head, Align: table.Right, Width: w}, func(r *Row) table.Cell {
		v := get(r)
		if v == nil {
			return table.Figure("-")
		}
		return table.Number(fmt.Sprintf("%.*f", prec, *v), *v)
	}}
}

// slaText is the console's SLA cell: pass, FAIL, ? (the interval
// straddles a limit) or - without an SLA.
func slaText(r *Row) string {
	if r.SLAVerdict == VerdictUnresolved {
		return "?"
	}
	if r.SLAPass == nil {
		return "-"
	}
	if *r.SLAPass {
		return "pass"
	}
	return "FAIL"
}

// flagsText marks H (harness-limited) and L (Little's law off).
func flagsText(r *Row) string {
	flags := ""
	if r.HarnessLimited {
		flags += "H"
	}
	if r.LittlesLawOff {
		flags += "L"
	}
	return flags
}
