package capacity

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FileName is the sweep file's name: sweep-{label}-{kind}-{date}.json,
// label being e.g. the endpoint or model name ("/" replaced by "_") and
// date the run's timestamp (20260101-000000). The CSV takes .csv.
func FileName(label string, kind Kind, date string) string {
	label = strings.ReplaceAll(label, "/", "_")
	return fmt.Sprintf("sweep-%s-%s-%s.json", label, kind, date)
}

// WriteJSON writes the sweep file (see Sweep), indented by two spaces,
// with a trailing newline. Map keys come sorted, so output is
// deterministic.
func WriteJSON(w io.Writer, s *Sweep) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<" stays "<" in SLA terms and verdicts
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// csvColumns are the CSV's fixed columns, named like the JSON keys.
var csvColumns = []string{
	"load", "load_kind", "runs", "completed", "failed", "error_rate", "request_throughput",
	"output_throughput", "mean_ttft_ms", "p99_ttft_ms", "mean_itl_ms", "p99_itl_ms", "mean_tpot_ms",
	"mean_e2el_ms", "mean_per_user_tps", "p10_per_user_tps", "token_goodput", "max_concurrent_requests",
	"mean_in_flight", "littles_law_ratio", "littles_law_off", "dispatch_lag_p99_ms", "client_cpu",
	"harness_limited", "sla_pass",
}

// WriteCSV writes one line per step: csvColumns, then one column per SLA
// term named "sla:" + the term (e.g. "sla:p99_ttft_ms<500") holding
// pass, fail or missing, then result_file, then the cost columns when the
// sweep is priced and the utilisation columns when any step has them
// (see extraColumns). Empty cells are unknown
// values (JSON null). Numbers use Go's shortest exact form.
func WriteCSV(w io.Writer, s *Sweep) error {
	cw := csv.NewWriter(w)
	head := append([]string{}, csvColumns...)
	for _, t := range s.SLA {
		head = append(head, "sla:"+t.String())
	}
	head = append(head, "result_file")
	head = append(head, extraColumns(s)...)
	if err := cw.Write(head); err != nil {
		return err
	}
	for i := range s.Steps {
		r := &s.Steps[i]
		line := []string{
			f64(r.Load), string(r.LoadKind), strconv.Itoa(r.Runs), strconv.Itoa(r.Completed), strconv.Itoa(r.Failed),
			f64(r.ErrorRate), f64(r.RequestThroughput), f64(r.OutputThroughput), f64(r.MeanTTFTMs), f64(r.P99TTFTMs),
			f64(r.MeanITLMs), f64(r.P99ITLMs), f64(r.MeanTPOTMs), f64(r.MeanE2ELMs), f64(r.MeanPerUserTPS),
			f64(r.P10PerUserTPS), f64(r.TokenGoodput), f64(r.MaxConcurrentRequests), optF(r.MeanInFlight),
			optF(r.LittlesLawRatio), strconv.FormatBool(r.LittlesLawOff), optF(r.DispatchLagP99Ms), optF(r.ClientCPU),
			strconv.FormatBool(r.HarnessLimited), optB(r.SLAPass),
		}
		for _, t := range r.SLATerms {
			switch {
			case t.Actual == nil:
				line = append(line, "missing")
			case t.Pass:
				line = append(line, "pass")
			default:
				line = append(line, "fail")
			}
		}
		line = append(line, r.ResultFile)
		line = append(line, extraCells(s, r)...)
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func f64(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

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

// WriteText writes the sweep as a table, one line per step, then the
// saturation point, the max load under the SLA, the notes and the
// verdict. Columns: load, completed requests, request and output throughput, mean/p99 TTFT,
// mean/p99 ITL, mean TPOT (ms), mean/p10 per-user TPS, error rate, and
// SLA (pass, FAIL, or - without an SLA); a flag column marks H
// (harness-limited) and L (Little's law off); cost and utilisation
// columns follow when the sweep has them (see extraHead). After the max
// load under the SLA comes the capacity there (see writeAtSLA).
func WriteText(w io.Writer, s *Sweep) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-12s %9s %9s %11s %9s %9s %8s %8s %8s %8s %8s %7s %-5s %s%s\n",
		string(s.LoadKind), "completed", "req/s", "out tok/s", "TTFT ms", "p99 TTFT", "ITL ms", "p99 ITL", "TPOT ms",
		"user TPS", "p10 TPS", "err %", "SLA", "flags", extraHead(s))
	for i := range s.Steps {
		r := &s.Steps[i]
		sla := "-"
		if r.SLAPass != nil {
			sla = "pass"
			if !*r.SLAPass {
				sla = "FAIL"
			}
		}
		if r.SLAVerdict == VerdictUnresolved {
			sla = "?" // the interval straddles a limit
		}
		flags := ""
		if r.HarnessLimited {
			flags += "H"
		}
		if r.LittlesLawOff {
			flags += "L"
		}
		ex := extraText(s, r)
		if ex != "" {
			flags = fmt.Sprintf("%-5s", flags)
		}
		fmt.Fprintf(bw, "%-12s %9d %9.2f %11.1f %9.1f %9.1f %8.1f %8.1f %8.1f %8.1f %8.1f %7.2f %-5s %s%s\n",
			strconv.FormatFloat(r.Load, 'f', -1, 64), r.Completed, r.RequestThroughput, r.OutputThroughput,
			r.MeanTTFTMs, r.P99TTFTMs, r.MeanITLMs, r.P99ITLMs, r.MeanTPOTMs,
			r.MeanPerUserTPS, r.P10PerUserTPS, 100*r.ErrorRate, sla, flags, ex)
	}
	if len(s.SLA) > 0 {
		fmt.Fprintf(bw, "SLA: %s\n", s.SLA)
	}
	if sat := s.Saturation; sat != nil {
		fmt.Fprintf(bw, "Saturation: %s at ~%s tok/s (%s)\n", loadWords(sat.Load, s.LoadKind), num(sat.OutputThroughput), sat.Evidence)
		writeCause(bw, sat)
	} else {
		fmt.Fprintln(bw, "Saturation: not seen")
	}
	if ml := s.MaxLoadUnderSLA; len(s.SLA) > 0 {
		load, binding := "none", "-"
		if ml.Load != nil {
			load = loadWords(*ml.Load, s.LoadKind)
		}
		if ml.Binding != nil {
			binding = *ml.Binding
		}
		if ml.Resolved != nil && !*ml.Resolved {
			sure := "none"
			if ml.LowerBound != nil {
				sure = loadWords(*ml.LowerBound, s.LoadKind)
			}
			load += ", not resolved (steps marked ?): surely met up to " + sure
		}
		fmt.Fprintf(bw, "Max load under SLA: %s (binding: %s)\n", load, binding)
	}
	writeAtSLA(bw, s)
	for _, n := range s.Notes {
		fmt.Fprintf(bw, "Note: %s\n", n)
	}
	fmt.Fprintf(bw, "Verdict: %s\n", s.Verdict)
	return bw.Flush()
}
