package capacity

import (
	"strconv"

	"github.com/llmbench/llmbench/internal/table"
)

// csvTableColumns are the CSV's columns: the fixed ones named like the
// JSON keys, one per SLA term named "sla:" + the term (e.g.
// "sla:p99_ttft_ms<500") holding pass, fail or missing, result_file, then
// the cost and utilisation columns (extraColumns). Empty cells are
// unknown values (JSON null); numbers are Go's shortest exact form.
func csvTableColumns(s *Sweep) []stepColumn {
	num := func(key string, get func(r *Row) float64) stepColumn {
		return stepColumn{table.Column{Key: key}, func(r *Row) table.Cell { v := get(r); return table.Number(f64(v), v) }}
	}
	opt := func(key string, get func(r *Row) *float64) stepColumn {
		return stepColumn{table.Column{Key: key}, func(r *Row) table.Cell {
			if v := get(r); v != nil {
				return table.Number(f64(*v), *v)
			}
			return table.Figure("")
		}}
	}
	word := func(key string, get func(r *Row) string) stepColumn {
		return stepColumn{table.Column{Key: key}, func(r *Row) table.Cell { return table.Words(get(r)) }}
	}
	count := func(key string, get func(r *Row) int) stepColumn {
		return stepColumn{table.Column{Key: key}, func(r *Row) table.Cell { v := get(r); return table.Number(strconv.Itoa(v), float64(v)) }}
	}
	cols := []stepColumn{
		num("load", func(r *Row) float64 { return r.Load }),
		word("load_kind", func(r *Row) string { return string(r.LoadKind) }),
		count("runs", func(r *Row) int { return r.Runs }),
		count("completed", func(r *Row) int { return r.Completed }),
		count("failed", func(r *Row) int { return r.Failed }),
		num("error_rate", func(r *Row) float64 { return r.ErrorRate }),
		num("request_throughput", func(r *Row) float64 { return r.RequestThroughput }),
		num("output_throughput", func(r *Row) float64 { return r.OutputThroughput }),
		num("mean_ttft_ms", func(r *Row) float64 { return r.MeanTTFTMs }),
		num("p99_ttft_ms", func(r *Row) float64 { return r.P99TTFTMs }),
		num("mean_itl_ms", func(r *Row) float64 { return r.MeanITLMs }),
		num("p99_itl_ms", func(r *Row) float64 { return r.P99ITLMs }),
		num("mean_tpot_ms", func(r *Row) float64 { return r.MeanTPOTMs }),
		num("mean_e2el_ms", func(r *Row) float64 { return r.MeanE2ELMs }),
		num("mean_per_user_tps", func(r *Row) float64 { return r.MeanPerUserTPS }),
		num("p10_per_user_tps", func(r *Row) float64 { return r.P10PerUserTPS }),
		num("token_goodput", func(r *Row) float64 { return r.TokenGoodput }),
		num("max_concurrent_requests", func(r *Row) float64 { return r.MaxConcurrentRequests }),
		opt("mean_in_flight", func(r *Row) *float64 { return r.MeanInFlight }),
		opt("littles_law_ratio", func(r *Row) *float64 { return r.LittlesLawRatio }),
		word("littles_law_off", func(r *Row) string { return strconv.FormatBool(r.LittlesLawOff) }),
		opt("dispatch_lag_p99_ms", func(r *Row) *float64 { return r.DispatchLagP99Ms }),
		opt("client_cpu", func(r *Row) *float64 { return r.ClientCPU }),
		word("harness_limited", func(r *Row) string { return strconv.FormatBool(r.HarnessLimited) }),
		word("sla_pass", func(r *Row) string { return optB(r.SLAPass) }),
	}
	for i, t := range s.SLA {
		cols = append(cols, word("sla:"+t.String(), func(r *Row) string { return termText(r, i) }))
	}
	cols = append(cols, word("result_file", func(r *Row) string { return r.ResultFile }))
	if s.Pricing != nil {
		cols = append(cols,
			opt("usd_per_hour", func(r *Row) *float64 { return r.USDPerHour }),
			opt("usd_per_request", func(r *Row) *float64 { return r.USDPerRequest }),
			opt("usd_per_1m_output_tokens", func(r *Row) *float64 { return r.USDPer1MOutputTokens }))
	}
	if hasUtilization(s) {
		for _, c := range utilColumns {
			get := c.get
			cols = append(cols, opt(c.csv, func(r *Row) *float64 {
				if r.Utilization == nil {
					return nil
				}
				return get(r.Utilization)
			}))
		}
		cols = append(cols, word("utilization_normalized", func(r *Row) string {
			if r.Utilization == nil {
				return ""
			}
			return strconv.FormatBool(r.Utilization.Normalized)
		}))
	}
	return cols
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

func optB(v *bool) string {
	if v == nil {
		return ""
	}
	return strconv.FormatBool(*v)
}

// pageFigures are the page's figure columns (key, header), shown when
// any step has the key.
var pageFigures = [][2]string{
	{"output_throughput", "output tok/s"}, {"request_throughput", "req/s"},
	{"mean_ttft_ms", "mean TTFT ms"}, {"p99_ttft_ms", "p99 TTFT ms"},
	{"mean_itl_ms", "mean ITL ms"}, {"p99_itl_ms", "p99 ITL ms"}, {"mean_tpot_ms", "mean TPOT ms"},
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
		{table.Column{Key: "completed", Header: "completed", Align: table.Right}, func(r *Row) table.Cell {
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
