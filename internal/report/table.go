// Package report turns a metrics.Summary into what users read: vLLM's
// console result table (byte for byte), vLLM's result JSON (key names and
// order, Python number formatting) with llmbench's own keys appended, the
// automatic result file name, and the "Specifics" section; around them,
// what a run prints before it starts (Banner) and after (WriteRun: the
// notes on canceled and partial figures), and the run's saved files
// (SaveRun, MakeDirs).
//
// It never computes metrics; every figure comes from the Summary. Writers
// take an io.Writer, return an error and are deterministic.
package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/table"
)

// Width is the width of vLLM's table headers and closing line.
const Width = 50

// metricNames are each percentile metric's section header and short name
// in vLLM's table.
var metricNames = map[string]struct{ header, short string }{
	metrics.TTFT:            {"Time to First Token", "TTFT"},
	metrics.TPOT:            {"Time per Output Token (excl. 1st token)", "TPOT"},
	metrics.ITL:             {"Inter-token Latency", "ITL"},
	metrics.E2EL:            {"End-to-end Latency", "E2EL"},
	metrics.ClientQueueTime: {"Client-side Queueing", "Client Queue Time"},
	metrics.E2ELInclQueue:   {"Queue-inclusive End-to-end Latency", "E2EL incl. Client Queue"},
}

// Center centres s in Width characters with fill, like Python's
// "{:fill^50}".format(s): an odd leftover fill character goes right.
func Center(s string, fill byte) string { return table.Center(s, fill, Width) }

// lineInt is vLLM's "{:<40} {:<10}" for an integer.
func lineInt(label string, v int) string {
	return fmt.Sprintf("%-40s %-10s", label, strconv.Itoa(v))
}

// lineStr is "{:<40} {:<10}" for a string value.
func lineStr(label, v string) string {
	return fmt.Sprintf("%-40s %-10s", label, v)
}

// lineF2 is vLLM's "{:<40} {:<10.2f}".
func lineF2(label string, v float64) string {
	return fmt.Sprintf("%-40s %-10s", label, fixed2(v))
}

// fixed2 is Python's "{:.2f}": correctly rounded from the binary value,
// "inf"/"nan" for non-finite values.
func fixed2(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// PercentileLabel is vLLM's text of a percentile in labels and keys: the
// integer form when whole ("99"), else Python's float text ("99.9").
func PercentileLabel(p float64) string {
	if p == math.Trunc(p) && math.Abs(p) < 1e15 {
		return strconv.FormatInt(int64(p), 10)
	}
	return PyRepr(p)
}

// WriteFailures writes vLLM's list of failed requests that precedes the
// table ("Failed requests during benchmark run detected (capping to 10):"
// then "Error i: <error>"); nothing when every request succeeded.
func WriteFailures(w io.Writer, s *metrics.Summary) error {
	if s.Failed == 0 {
		return nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "Failed requests during benchmark run detected (capping to 10):")
	for i, e := range s.FailedErrors {
		fmt.Fprintf(bw, "Error %d: %s\n", i, e)
	}
	return bw.Flush()
}

// TableLines returns vLLM's printed result table, one string per line
// without newlines, from the "Serving Benchmark Result" header to the
// closing line of 50 "=".
func TableLines(s *metrics.Summary, p *record.Params) []string {
	tok := !s.NoTokenizer
	var l []string
	add := func(line string) { l = append(l, line) }
	add(Center(" Serving Benchmark Result ", '='))
	add(lineInt("Successful requests:", s.Completed))
	add(lineInt("Failed requests:", s.Failed))
	if p.MaxConcurrency != nil {
		add(lineInt("Maximum request concurrency:", *p.MaxConcurrency))
	}
	if !p.RequestRate.IsInf() {
		add(lineF2("Request rate configured (RPS):", float64(p.RequestRate)))
	}
	add(lineF2("Benchmark duration (s):", s.Duration))
	add(lineInt("Total input tokens:", s.TotalInput))
	if tok {
		add(lineInt("Total generated tokens:", s.TotalOutput))
	}
	add(lineF2("Request throughput (req/s):", s.RequestThroughput))
	if s.RequestGoodput != nil {
		add(lineF2("Request goodput (req/s):", *s.RequestGoodput))
	}
	if tok {
		add(lineF2("Output token throughput (tok/s):", s.OutputThroughput))
		add(lineF2("Peak output token throughput (tok/s):", s.MaxOutputTokensPerS))
	}
	add(lineF2("Peak concurrent requests:", float64(s.MaxConcurrentRequests)))
	if s.RTFx > 0 {
		add(lineF2("RTFx (Inverse Real-Time Factor):", s.RTFx))
	}
	if tok {
		add(lineF2("Total token throughput (tok/s):", s.TotalTokenThroughput))
	}
	for i := range s.Metrics {
		names := metricNames[s.Metrics[i].Metric]
		l = appendStats(l, names.header, names.short, &s.Metrics[i], s.Percentiles)
	}
	add(strings.Repeat("=", Width))
	return l
}

// appendStats appends one statistics block as vLLM prints it: header
// centred with "-", then "Mean SHORT (ms):", "Median SHORT (ms):" and
// "P<p> SHORT (ms):" per percentile.
func appendStats(l []string, header, short string, st *metrics.Stats, pcts []float64) []string {
	l = append(l, Center(header, '-'),
		lineF2("Mean "+short+" (ms):", st.Mean),
		lineF2("Median "+short+" (ms):", st.Median))
	for i, pct := range pcts {
		l = append(l, lineF2("P"+PercentileLabel(pct)+" "+short+" (ms):", st.Percentiles[i]))
	}
	return l
}

// ClientTimingLines returns llmbench's "Client-side Timing" section, in
// the table's layout: how long requests queued for a concurrency slot, how
// late the client sent them against the schedule, (with fromIntended)
// TTFT and E2EL measured from the intended send time, and the per-user
// view (see perUserLines). It is empty when the Summary has none of these.
func ClientTimingLines(s *metrics.Summary, fromIntended bool) []string {
	type block struct {
		header, short string
		st            *metrics.Stats
	}
	x := &s.Extra
	blocks := []block{
		{"Client queue time", "Queue", x.ClientQueue},
		{"Dispatch lag (sent - intended)", "Lag", x.DispatchLag},
	}
	if fromIntended {
		blocks = append(blocks,
			block{"TTFT from intended send time", "TTFT*", x.TTFTFromIntended},
			block{"E2EL from intended send time", "E2EL*", x.E2ELFromIntended})
	}
	var l []string
	for _, b := range blocks {
		if b.st != nil {
			l = appendStats(l, b.header, b.short, b.st, s.Percentiles)
		}
	}
	l = append(l, perUserLines(s)...)
	l = append(l, perTurnLines(s)...)
	if len(l) == 0 {
		return nil
	}
	l = append([]string{Center(" Client-side Timing (llmbench) ", '=')}, l...)
	return append(l, strings.Repeat("=", Width))
}

// perUserLines is the per-user view's block (docs/capacity.md): per-user
// TPS (mean, median, the low percentiles), system output TPS and token
// goodput, in tokens per second; nothing when no request succeeded.
func perUserLines(s *metrics.Summary) []string {
	pu := &s.PerUser
	if s.Completed == 0 {
		return nil
	}
	l := []string{
		Center("Per-user view", '-'),
		lineF2("Mean per-user TPS (tok/s):", pu.MeanTPS),
		lineF2("Median per-user TPS (tok/s):", pu.MedianTPS),
	}
	for i, q := range metrics.PerUserPercentiles {
		if i < len(pu.LowTPS) {
			l = append(l, lineF2("P"+PercentileLabel(q)+" per-user TPS (tok/s):", pu.LowTPS[i]))
		}
	}
	l = append(l,
		lineF2("System output TPS (tok/s):", pu.SystemTPS),
		lineF2("Token goodput (tok/s):", pu.TokenGoodput))
	if pu.GoodputRequests == 0 && s.Stream.Truncated == s.Completed {
		// Token goodput counts natural stops only (docs/capacity.md); say
		// why it is 0 when every answer ran to max_tokens.
		l = append(l, "(every answer ran to max_tokens, e.g. under the",
			" random dataset's ignore_eos: none stopped on its own)")
	}
	return l
}

// perTurnLines is TTFT by turn of a multi-turn run: mean and the run's
// last percentile per turn.
func perTurnLines(s *metrics.Summary) []string {
	if len(s.PerTurn) == 0 {
		return nil
	}
	l := []string{Center("TTFT by turn (multi-turn)", '-')}
	for _, t := range s.PerTurn {
		l = append(l, lineF2(fmt.Sprintf("Turn %d mean TTFT (ms):", t.Turn), t.TTFT.Mean))
		if n := len(s.Percentiles); n > 0 {
			q := s.Percentiles[n-1]
			l = append(l, lineF2(fmt.Sprintf("Turn %d P%s TTFT (ms):", t.Turn, PercentileLabel(q)), t.TTFT.Percentiles[n-1]))
		}
	}
	return l
}

// WriteClientTiming writes the client-side timing section (see
// ClientTimingLines).
func WriteClientTiming(w io.Writer, s *metrics.Summary, fromIntended bool) error {
	return writeLines(w, ClientTimingLines(s, fromIntended))
}

// WriteTable writes vLLM's result table (see TableLines).
func WriteTable(w io.Writer, s *metrics.Summary, p *record.Params) error {
	return writeLines(w, TableLines(s, p))
}

// Specifics titles for WriteSpecifics.
const (
	SageMakerSpecifics = "SageMaker Specifics"
	StreamSpecifics    = "Stream Specifics"
)

// SpecificsLines returns the specifics section: a 50-wide "=" header with
// title, how successful streams ended, where output token counts came
// from, failures by error class, and a closing line.
func SpecificsLines(title string, s *metrics.Summary) []string {
	ss := &s.Stream
	l := []string{
		Center(" "+title+" ", '='),
		lineInt("Truncated (finish_reason=length):", ss.Truncated),
		lineInt("Stopped at EOS:", ss.StoppedEOS),
		lineInt("Finish reason unknown:", ss.FinishUnknown),
		lineInt("Requests without usage frame:", ss.WithoutUsage),
	}
	src := "none"
	if len(ss.Sources) == 1 {
		src = ss.Sources[0].Name
	} else if len(ss.Sources) > 1 {
		parts := make([]string, len(ss.Sources))
		for i, c := range ss.Sources {
			parts[i] = fmt.Sprintf("%s %d", c.Name, c.N)
		}
		src = strings.Join(parts, ", ")
	}
	l = append(l, lineStr("Output token count source:", src))
	if len(ss.Errors) == 0 {
		l = append(l, lineStr("Error breakdown:", "none"))
	} else {
		l = append(l, lineInt("Error breakdown:", s.Failed))
		for _, c := range ss.Errors {
			l = append(l, lineInt("  "+c.Name+":", c.N))
		}
	}
	return append(l, strings.Repeat("=", Width))
}

// WriteSpecifics writes the specifics section (see SpecificsLines); title
// is SageMakerSpecifics or StreamSpecifics.
func WriteSpecifics(w io.Writer, title string, s *metrics.Summary) error {
	return writeLines(w, SpecificsLines(title, s))
}

// WriteWarnings writes each warning as "Warning: <text>" on its own line
// (the run's other warnings use the same prefix).
func WriteWarnings(w io.Writer, s *metrics.Summary) error {
	lines := make([]string, len(s.Warnings))
	for i, m := range s.Warnings {
		lines[i] = "Warning: " + m
	}
	return writeLines(w, lines)
}

func writeLines(w io.Writer, lines []string) error {
	bw := bufio.NewWriter(w)
	for _, line := range lines {
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
