package capacity

import (
	"strconv"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/table"
)

// csvColumns are the CSV's fixed columns, named like the JSON keys.
var csvColumns = []string{
	"load", "load_kind", "runs", metrics.KeyCompleted, metrics.KeyFailed, "error_rate", metrics.KeyRequestThroughput,
	metrics.KeyOutputThroughput, metrics.KeyMeanTTFT, metrics.KeyP99TTFT, metrics.KeyMeanITL, metrics.KeyP99ITL, metrics.KeyMeanTPOT,
	metrics.KeyMeanE2EL, "mean_per_user_tps", "p10_per_user_tps", "token_goodput", metrics.KeyMaxConcurrentRequests,
	"mean_in_flight", "littles_law_ratio", "littles_law_off", "dispatch_lag_p99_ms", "client_cpu",
	"harness_limited", "sla_pass",
}

// csvTable is the CSV's table: csvColumns, then one column per SLA term
// named "sla:" + the term (e.g. "sla:p99_ttft_ms<500") holding pass, fail
// or missing, then result_file, then the cost columns when the sweep is
// priced and the utilisation columns when any step has them. Empty cells
// are unknown values (JSON null); numbers are Go's shortest exact form.
func csvTable(s *Sweep) *table.Table {
	head := append([]string{}, csvColumns...)
	for _, t := range s.SLA {
		head = append(head, "sla:"+t.String())
	}
	head = append(head, "result_file")
	if s.Pricing != nil {
		head = append(head, "usd_per_hour", "usd_per_request", "usd_per_1m_output_tokens")
	}
	if hasUtilization(s) {
		for _, c := range utilColumns {
			head = append(head, c.csv)
		}
		head = append(head, "utilization_normalized")
	}
	t := &table.Table{Title: "Steps"}
	for _, k := range head {
		t.Columns = append(t.Columns, table.Column{Key: k})
	}
	for i := range s.Steps {
		var row []table.Cell
		for _, c := range csvLine(s, &s.Steps[i]) {
			row = append(row, table.Words(c))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// csvLine is a step's CSV cells.
func csvLine(s *Sweep, r *Row) []string {
	line := []string{
		f64(r.Load), string(r.LoadKind), strconv.Itoa(r.Runs), strconv.Itoa(r.Completed), strconv.Itoa(r.Failed),
		f64(r.ErrorRate), f64(r.RequestThroughput), f64(r.OutputThroughput), f64(r.MeanTTFTMs), f64(r.P99TTFTMs),
		f64(r.MeanITLMs), f64(r.P99ITLMs), f64(r.MeanTPOTMs), f64(r.MeanE2ELMs), f64(r.MeanPerUserTPS),
		f64(r.P10PerUserTPS), f64(r.TokenGoodput), f64(r.MaxConcurrentRequests), optF(r.MeanInFlight),
		optF(r.LittlesLawRatio), strconv.FormatBool(r.LittlesLawOff), optF(r.DispatchLagP99Ms), optF(r.ClientCPU),
		strconv.FormatBool(r.HarnessLimited), optB(r.SLAPass),
	}
	for i := range s.SLA {
		line = append(line, termText(r, i))
	}
	line = append(line, r.ResultFile)
	if s.Pricing != nil {
		line = append(line, optF(r.USDPerHour), optF(r.USDPerRequest), optF(r.USDPer1MOutputTokens))
	}
	if hasUtilization(s) {
		u := r.Utilization
		for _, c := range utilColumns {
			if u == nil {
				line = append(line, "")
			} else {
				line = append(line, optF(c.get(u)))
			}
		}
		if u == nil {
			line = append(line, "")
		} else {
			line = append(line, strconv.FormatBool(u.Normalized))
		}
	}
	return line
}

// termText is the outcome of the step's i-th SLA term: pass, fail or
// missing (not reported); "" when the step has no such term.
func termText(r *Row, i int) string {
	if i >= len(r.SLATerms) {
		return ""
	}
	switch t := r.SLATerms[i]; {
	case t.Actual == nil:
		return "missing"
	case t.Pass:
		return "pass"
	}
	return "fail"
}

func optF(v *float64) string {
	if v == nil {
		return ""
	}
	return f64(*v)
}

func optB(v *bool) string {
	if v == nil {
		return ""
	}
	return strconv.FormatBool(*v)
}

// pageFigures are the page's figure columns (key, header), shown when
// any step has the key.
var pageFigures = [][2]string{
	{metrics.KeyOutputThroughput, "output tok/s"}, {metrics.KeyRequestThroughput, "req/s"},
	{metrics.KeyMeanTTFT, "mean TTFT ms"}, {metrics.KeyP99TTFT, "p99 TTFT ms"},
	{metrics.KeyMeanITL, "mean ITL ms"}, {metrics.KeyP99ITL, "p99 ITL ms"}, {metrics.KeyMeanTPOT, "mean TPOT ms"},
	{"error_rate", "error rate"}, {"mean_per_user_tps", "mean tok/s/user"}, {"p10_per_user_tps", "p10 tok/s/user"},
	{"usd_per_1m_output_tokens", "USD/1M tok"},
}

// pageColumns are the HTML page's columns: load and completed first (a
// step's figures are only as sure as the requests behind them: a p99
// over 6 requests is its maximum), the figures any step has, the SLA.
func pageColumns(s *Sweep) []stepColumn {
	cols := []stepColumn{
		{table.Column{Key: "load", Header: "load"}, func(r *Row) table.Cell {
			return table.Number(strconv.FormatFloat(r.Load, 'g', -1, 64), r.Load)
		}},
		{table.Column{Key: metrics.KeyCompleted, Header: "completed", Align: table.Right}, func(r *Row) table.Cell {
			return table.Number(strconv.Itoa(r.Completed), float64(r.Completed))
		}},
	}
	for _, f := range pageFigures {
		key := f[0]
		for i := range s.Steps {
			if _, ok := s.Steps[i].Figure(key); ok {
				cols = append(cols, stepColumn{table.Column{Key: key, Header: f[1], Align: table.Right}, func(r *Row) table.Cell {
					if v, ok := r.Figure(key); ok {
						return table.Number(strconv.FormatFloat(v, 'f', 2, 64), v)
					}
					return table.Figure("-")
				}})
				break
			}
		}
	}
	return append(cols, stepColumn{table.Column{Key: "sla", Header: "SLA", Align: table.Right}, pageVerdict})
}

// pageVerdict is the page's SLA cell: pass or fail marked, unresolved
// when the interval it was judged on straddles a limit (docs/capacity.md,
// "Pass, fail or unresolved"), "-" without an SLA.
func pageVerdict(r *Row) table.Cell {
	c := table.Words("-")
	if r.SLAPass != nil {
		c = table.Cell{Text: "fail", Mark: table.Fail}
		if *r.SLAPass {
			c = table.Cell{Text: "pass", Mark: table.Pass}
		}
	}
	if r.SLAVerdict == VerdictUnresolved {
		c = table.Words("unresolved")
	}
	if r.HarnessLimited {
		c.Text += " (harness-limited)"
	}
	return c
}

// Figure is the step's figure for a result key: its metrics (every
// numeric result key, see Row.Metrics), else its cost figures, which
// live beside them; ok false when the step lacks it.
func (r *Row) Figure(key string) (float64, bool) {
	if v, ok := r.Value(key); ok {
		return v, true
	}
	var p *float64
	switch key {
	case "usd_per_1m_output_tokens":
		p = r.USDPer1MOutputTokens
	case "usd_per_request":
		p = r.USDPerRequest
	case "usd_per_hour":
		p = r.USDPerHour
	}
	if p == nil {
		return 0, false
	}
	return *p, true
}
