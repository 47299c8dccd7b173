package metrics

import (
	"slices"

	"github.com/llmbench/llmbench/internal/stats"
)

// Per-run confidence intervals (issue 27, docs/confidence.md): for every
// reported figure with one value per request, the Student-t interval of
// the mean and the exact distribution-free (binomial order-statistic)
// interval of the median and of each reported percentile. The arithmetic
// is package stats'; this file only maps the figures onto it.

// CI is a run's per-run confidence intervals, the result's llmbench.ci.
type CI struct {
	// Confidence is the level of every interval (stats.DefaultConfidence).
	Confidence float64
	// Metrics are the reported metrics (Summary.Metrics), in their order.
	Metrics []MetricCI
}

// MetricCI holds one metric's intervals in milliseconds. A nil interval
// is one that does not exist: a mean of fewer than two values, or a
// percentile the sample is too small to bound (a p99 needs at least 368
// values at 0.95; stats.MinSamples), or p0 and p100.
type MetricCI struct {
	// Metric is the metric's name (TTFT, TPOT, ...).
	Metric string
	// N is the number of values the intervals are over.
	N int
	// Pooled is true for ITL: its values are the gaps of every request
	// pooled, and the gaps inside one request are correlated (one slow
	// batch step slows them all), so no per-run interval is given and
	// every interval is nil.
	Pooled bool
	// Mean is the Student-t interval of the mean.
	Mean *stats.Interval
	// Median is the exact interval of the 0.5 quantile.
	Median *stats.Interval
	// Percentiles hold the exact interval of each Summary.Percentiles
	// entry, in that order.
	Percentiles []*stats.Interval
}

// MinSamples is the fewest values for which the exact interval of
// percentile p (in [0, 100]) exists at c's confidence; 0 when it never
// does (p0, p100).
func (c *CI) MinSamples(p float64) int {
	return stats.MinSamples(p/100, c.Confidence)
}

// meanCI is the Student-t interval of the mean of values (seconds) in
// milliseconds; nil below two values. It reads values in list order and
// leaves them as they are, so that vLLM's pairwise mean, computed next
// from the same list, keeps its last bits.
func meanCI(values []float64, conf float64) *stats.Interval {
	_, ci, ok := stats.MeanCI(values, conf)
	if !ok {
		return nil
	}
	return &stats.Interval{Low: ci.Low * 1000, High: ci.High * 1000}
}

// quantileCIs fills the exact intervals of the median and of each
// percentile of values (seconds) into c, in milliseconds. It reorders
// values (a selection of the needed ranks instead of a full sort), so it
// runs after describe has read them.
func quantileCIs(c *MetricCI, values []float64, pcts []float64, conf float64) {
	n := len(values)
	qs := make([]float64, 0, 1+len(pcts))
	qs = append(qs, 0.5)
	for _, p := range pcts {
		qs = append(qs, p/100)
	}
	type span struct {
		lo, hi int
		ok     bool
	}
	spans := make([]span, len(qs))
	var ranks []int
	for i, q := range qs {
		lo, hi, ok := stats.PercentileRanks(n, q, conf)
		spans[i] = span{lo, hi, ok}
		if ok {
			ranks = append(ranks, lo, hi)
		}
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	selectRanks(values, ranks)
	out := make([]*stats.Interval, len(qs))
	for i, sp := range spans {
		if sp.ok {
			out[i] = &stats.Interval{Low: values[sp.lo] * 1000, High: values[sp.hi] * 1000}
		}
	}
	c.Median, c.Percentiles = out[0], out[1:]
}

// describeWithCI is describe plus the metric's intervals: the mean's
// first (list order untouched), then describe, then the quantiles' (which
// reorder the list describe is done with).
func describeWithCI(metric string, values []float64, pcts []float64, conf float64) (Stats, MetricCI) {
	c := MetricCI{Metric: metric, N: len(values), Mean: meanCI(values, conf)}
	st := describe(metric, values, pcts)
	quantileCIs(&c, values, pcts, conf)
	return st, c
}

// pooledCI is ITL's entry: no intervals (see MetricCI.Pooled).
func pooledCI(metric string, n int, pcts []float64) MetricCI {
	return MetricCI{Metric: metric, N: n, Pooled: true, Percentiles: make([]*stats.Interval, len(pcts))}
}
