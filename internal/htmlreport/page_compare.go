package htmlreport

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/report"
)

// compareSection is the compare page: legend, Δ% table with each
// change's significance and bootstrap interval, crossed bounds
// highlighted, the runs' configuration, and the figures of every run
// overlaid. alpha is compare's --alpha (0 = report.DefaultAlpha).
func compareSection(runs []*Run, bounds []report.Bound, alpha float64) (Section, error) {
	files := make([]*report.CompareFile, len(runs))
	for i, r := range runs {
		files[i] = r.Result
		// A records file's run holds its requests in memory only.
		if len(r.Requests) > 0 && r.RequestsFrom == "records file" {
			useRequests(r)
		}
	}
	report.LabelCompareFiles(files)
	c := report.NewComparison(files, report.CompareOptions{Alpha: alpha})
	crossed, noise, err := c.CheckBounds(bounds)
	if err != nil {
		return Section{}, err
	}
	labels := make([]string, len(files))
	for i, f := range files {
		labels[i] = f.Label
	}
	s := Section{Kind: "compare", Title: fmt.Sprintf("Comparison of %d runs (Δ%% against %s)", len(runs), files[0].Label),
		Files: report.CompareLegend(files)}
	for _, cr := range crossed {
		s.Crossed = append(s.Crossed, cr.Reason)
	}
	for _, cr := range noise {
		s.Notes = append(s.Notes, "--fail-if "+cr.Reason+".")
	}
	for i, r := range runs {
		if len(r.Requests) == 0 {
			s.Notes = append(s.Notes, labels[i]+": no per-request data; it appears in the percentile charts only.")
		}
	}
	if n := c.Notes(); n != nil {
		s.Notes = append(s.Notes, n...)
		s.Notes = append(s.Notes, "[low, high]: the bootstrap's 95 % interval of the relative change.")
	}
	s.Tables = append(s.Tables, compareTable(c, crossed))
	if header, rows, warnings := report.ConfigTable(files); rows != nil {
		t := Table{Title: "Configuration", Header: header}
		for _, row := range rows {
			line := []Cell{{Text: row[0]}}
			for _, v := range row[1:] {
				line = append(line, Cell{Text: v, Class: "num"})
			}
			t.Rows = append(t.Rows, line)
		}
		s.Tables = append(s.Tables, t)
		s.Notes = append(s.Notes, warnings...)
	}
	s.Charts = append(s.Charts, CDFOverlayCharts(runs, labels)...)
	s.Charts = append(s.Charts, ProfileCharts(runs, labels)...)
	s.Charts = append(s.Charts, OverTimeCharts(runs, labels)...)
	return s, nil
}

// useRequests hands a run's successful requests to its result for the
// significance tests.
func useRequests(r *Run) {
	var ttfts, lats []float64
	var itls [][]float64
	var outs []int
	for _, q := range r.Requests {
		if !q.OK {
			continue
		}
		ttfts, lats, itls, outs = append(ttfts, q.TTFT), append(lats, q.E2EL), append(itls, q.ITL), append(outs, q.OutputLen)
	}
	r.Result.UseRequests(ttfts, lats, itls, outs, r.RequestsFrom)
}

// compareTable is the Δ% table; a crossed bound marks the file's value and
// its Δ% cells. A judged change carries its mark ("(p=0.003)" or "~") and,
// from the bootstrap, the interval of the relative change.
func compareTable(c *report.Comparison, crossed []report.Crossing) Table {
	files := c.Files
	hit := map[string]bool{}
	for _, cr := range crossed {
		hit[strconv.Itoa(cr.File)+" "+cr.Key] = true
	}
	t := Table{Title: "Headline figures", Header: []string{"Metric"}}
	for i, f := range files {
		h := f.Label
		if f.Interrupted() {
			h += "*"
		}
		t.Header = append(t.Header, h)
		if i > 0 {
			t.Header = append(t.Header, "Δ%")
		}
	}
	for _, row := range report.PresentRows(files) {
		line := []Cell{{Text: row.Label}}
		for i, f := range files {
			cls := "num"
			if hit[strconv.Itoa(i)+" "+row.Key] {
				cls = "num crossed"
			}
			line = append(line, Cell{Text: f.Text(row.Key), Class: cls})
			if i > 0 {
				d := c.DeltaText(i, row.Key)
				if sg, ok := c.Significance(i, row.Key); ok && d != "-" && !math.IsNaN(sg.RelLow) {
					d += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", sg.RelLow*100, sg.RelHigh*100)
				}
				line = append(line, Cell{Text: d, Class: cls})
			}
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}

// sweepColumns are the step table's columns (key, header), shown when any
// step has the key.
var sweepColumns = [][2]string{
	{"output_throughput", "output tok/s"}, {"request_throughput", "req/s"},
	{"mean_ttft_ms", "mean TTFT ms"}, {"p99_ttft_ms", "p99 TTFT ms"},
	{"mean_itl_ms", "mean ITL ms"}, {"p99_itl_ms", "p99 ITL ms"}, {"mean_tpot_ms", "mean TPOT ms"},
	{"error_rate", "error rate"}, {"mean_per_user_tps", "mean tok/s/user"}, {"p10_per_user_tps", "p10 tok/s/user"},
	{"usd_per_1m_output_tokens", "USD/1M tok"},
}

// sweepSection is the sweep page: verdict, SLA, steps and charts.
func sweepSection(sw *Sweep) Section {
	s := Section{Kind: "sweep", Title: "Sweep: " + sw.LoadUnit(), Files: []string{sw.Path}, Verdict: sw.Verdict}
	var terms []string
	for _, t := range sw.SLA {
		terms = append(terms, fmt.Sprintf("%s %s %g", t.Key, t.Op, t.Value))
	}
	if len(terms) > 0 {
		s.Notes = append(s.Notes, "SLA: "+strings.Join(terms, " and ")+".")
	}
	if l := sw.MaxLoadUnderSLA.Load; l != nil {
		b := ""
		if sw.MaxLoadUnderSLA.Binding != nil {
			b = " (binding: " + *sw.MaxLoadUnderSLA.Binding + ")"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("Max load under the SLA: %g%s.", *l, b))
	} else if len(terms) > 0 {
		s.Notes = append(s.Notes, "No step met the SLA.")
	}
	if sw.Saturation != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("Saturation at load %g (%.1f output tokens/s): %s.", sw.Saturation.Load, sw.Saturation.OutputThroughput, sw.Saturation.Rule))
	}
	s.Tables = append(s.Tables, stepsTable(sw))
	s.Charts = SweepCharts(sw)
	return s
}

// stepsTable lists the steps with the columns any step has.
func stepsTable(sw *Sweep) Table {
	var cols [][2]string
	for _, c := range sweepColumns {
		for i := range sw.Steps {
			if _, ok := stepValue(&sw.Steps[i], c[0]); ok {
				cols = append(cols, c)
				break
			}
		}
	}
	// completed first: a step's figures are only as sure as the requests
	// behind them (a p99 over 6 requests is its maximum).
	t := Table{Title: "Steps", Header: []string{"load", "completed"}}
	for _, c := range cols {
		t.Header = append(t.Header, c[1])
	}
	t.Header = append(t.Header, "SLA")
	for i := range sw.Steps {
		st := &sw.Steps[i]
		row := []Cell{{Text: strconv.FormatFloat(st.Load, 'g', -1, 64), Class: "num"}, {Text: strconv.Itoa(st.Completed), Class: "num"}}
		for _, c := range cols {
			txt := "-"
			if v, ok := stepValue(st, c[0]); ok {
				txt = strconv.FormatFloat(v, 'f', 2, 64)
			}
			row = append(row, Cell{Text: txt, Class: "num"})
		}
		verdict := Cell{Text: "-"}
		if st.SLAPass != nil {
			verdict = Cell{Text: "fail", Class: "fail"}
			if *st.SLAPass {
				verdict = Cell{Text: "pass", Class: "pass"}
			}
		}
		if st.SLAVerdict == capacity.VerdictUnresolved {
			// The interval it was judged on straddles a limit
			// (docs/capacity.md, "Pass, fail or unresolved").
			verdict = Cell{Text: "unresolved"}
		}
		if st.HarnessLimited {
			verdict.Text += " (harness-limited)"
		}
		t.Rows = append(t.Rows, append(row, verdict))
	}
	return t
}
