package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// Keys, inside the ExtrasKey object, of run --runs K's result
// (docs/confidence.md, "Repeated runs"): RunStatsKey holds each figure's
// stats.RunStats over the runs (as a sweep row's run_stats),
// ConvergenceKey the stats.Convergence of --runs auto.
const (
	RunStatsKey    = "run_stats"
	ConvergenceKey = "convergence"
)

// runStatsFigure is one line of the section: its label and result key.
type runStatsFigure struct{ label, key string }

// runStatsFigures are the section's lines for a summary: the three
// throughputs, request goodput when set, and for each percentile metric
// its mean, median and every reported percentile, in vLLM's table order.
func runStatsFigures(s *metrics.Summary) []runStatsFigure {
	out := []runStatsFigure{
		{"Request throughput (req/s)", metrics.KeyRequestThroughput},
		{"Output token throughput (tok/s)", metrics.KeyOutputThroughput},
		{"Total token throughput (tok/s)", metrics.KeyTotalTokenThroughput},
		{"Request goodput (req/s)", metrics.KeyRequestGoodput},
	}
	for i := range s.Metrics {
		m := s.Metrics[i].Metric
		short := m
		if n, ok := metricNames[m]; ok {
			short = n.short
		}
		out = append(out, runStatsFigure{"Mean " + short + " (ms)", "mean_" + m + "_ms"},
			runStatsFigure{"Median " + short + " (ms)", "median_" + m + "_ms"})
		for _, p := range s.Percentiles {
			l := PercentileLabel(p)
			out = append(out, runStatsFigure{"P" + l + " " + short + " (ms)", "p" + l + "_" + m + "_ms"})
		}
	}
	return out
}

// WriteRunStats writes llmbench's section over K repeated runs (run
// --runs): per figure the mean over the runs, the sample standard
// deviation, the standard error, the t critical value, the t interval
// and the coefficient of variation, as AIPerf names them; then how
// --runs auto ended (conv; nil for a fixed K). Figures of s's table
// without run statistics (fewer than two runs reported them) are left
// out; with fewer than two runs the section says there is no interval.
func WriteRunStats(w io.Writer, s *metrics.Summary, rs map[string]stats.RunStats, k int, conv *stats.Convergence) error {
	lines := []string{Center(fmt.Sprintf(" Across %d runs (95%% t interval) ", k), '=')}
	if len(rs) == 0 {
		lines = append(lines, "Fewer than two complete runs: no interval over runs.")
	} else {
		lines = append(lines, fmt.Sprintf("%-32s %10s %9s %9s %6s %10s %10s %6s", "Figure", "mean", "std", "se", "t", "low", "high", "cv"))
	}
	for _, f := range runStatsFigures(s) {
		r, ok := rs[f.key]
		if !ok {
			continue
		}
		lines = append(lines, fmt.Sprintf("%-32s %10s %9s %9s %6s %10s %10s %6s", f.label, fixed2(r.Mean), fixed2(r.Std), fixed2(r.SE),
			strconv.FormatFloat(r.TCrit, 'f', 3, 64), fixed2(r.Low), fixed2(r.High), strconv.FormatFloat(100*r.CV, 'f', 1, 64)+"%"))
	}
	if conv != nil {
		lines = append(lines, ConvergenceLine(conv))
	}
	lines = append(lines, Center("", '='))
	return writeLines(w, lines)
}

// ConvergenceLine says in one line how --runs auto ended: converged
// after k runs, or not within --max-runs, with each deciding figure's
// interval width as a share of its mean.
func ConvergenceLine(c *stats.Convergence) string {
	if c.Converged {
		return fmt.Sprintf("Converged after %d runs (--runs auto): each deciding figure's interval is under %s%% of its mean: %s.",
			c.Runs, strconv.FormatFloat(100*c.CIWidth, 'f', -1, 64), capacity.ConvergenceWords(c))
	}
	return fmt.Sprintf("NOT converged after %d runs (--max-runs %d): %s; the figures stand, their intervals are wider than asked.",
		c.Runs, c.MaxRuns, capacity.ConvergenceWords(c))
}
