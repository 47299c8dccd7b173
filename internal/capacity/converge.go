package capacity

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// Deciding figures of "--runs auto" (docs/confidence.md, "Repeated
// runs"): repetition stops once each one's t interval over the runs is
// narrower than --ci-width of its mean.

// DefaultDeciding are the deciding figures of a run without --goodput
// and of a sweep step without --sla: output token throughput, mean TTFT
// and mean TPOT.
var DefaultDeciding = []string{metrics.KeyOutputThroughput, metrics.KeyMeanTTFT, metrics.KeyMeanTPOT}

// Deciding is the SLA's deciding figures: the keys of the terms
// sla_verdict judges on an interval (error_rate, judged on its value,
// is not one); DefaultDeciding when none is left.
func (s SLA) Deciding() []string {
	var keys []string
	for _, t := range s {
		if t.Key != "error_rate" && !slices.Contains(keys, t.Key) {
			keys = append(keys, t.Key)
		}
	}
	if len(keys) == 0 {
		return DefaultDeciding
	}
	return keys
}

// GoodputDeciding is the deciding figures of a run with --goodput SLOs
// (metric names: ttft, tpot, e2el): request_goodput and the mean of each
// SLO's metric, in the table's order.
func GoodputDeciding(slos map[string]float64) []string {
	keys := []string{metrics.KeyRequestGoodput}
	for _, m := range []string{"ttft", "tpot", "e2el"} {
		if _, ok := slos[m]; ok {
			keys = append(keys, "mean_"+m+"_ms")
		}
	}
	return keys
}

// ConvergenceWords lists each deciding figure's interval width as a
// share of its mean, marking those that are too wide: "output_throughput
// 3.1 %, mean_ttft_ms 14.2 % (needs < 10 %)".
func ConvergenceWords(c *stats.Convergence) string {
	parts := make([]string, len(c.Statistics))
	for i, st := range c.Statistics {
		w := "no interval"
		if st.RelativeWidth != nil {
			w = strconv.FormatFloat(100**st.RelativeWidth, 'f', 1, 64) + " %"
		}
		if !st.Converged {
			w += " (needs < " + strconv.FormatFloat(100*c.CIWidth, 'f', -1, 64) + " %)"
		}
		parts[i] = st.Key + " " + w
	}
	return strings.Join(parts, ", ")
}

// convergenceNotes say how many runs --runs auto took per step and which
// steps' intervals did not converge.
func convergenceNotes(steps []Row) []string {
	var took []string
	var out []string
	var c0 = -1
	for i := range steps {
		r := &steps[i]
		c := r.Convergence
		if c == nil {
			continue
		}
		if c0 < 0 {
			c0 = i
		}
		took = append(took, fmt.Sprintf("%s %d", strconv.FormatFloat(r.Load, 'f', -1, 64), c.Runs))
		if !c.Converged {
			out = append(out, fmt.Sprintf("%s: the 95 %% interval did not converge in %d runs (--max-runs %d): %s",
				loadWords(r.Load, r.LoadKind), c.Runs, c.MaxRuns, ConvergenceWords(c)))
		}
	}
	if c0 < 0 {
		return nil
	}
	c := steps[c0].Convergence
	head := fmt.Sprintf("--runs auto (--ci-width %s): runs per %s: %s", strconv.FormatFloat(c.CIWidth, 'f', -1, 64), steps[c0].LoadKind, strings.Join(took, ", "))
	return slices.Insert(out, 0, head)
}
