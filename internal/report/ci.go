package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// pooledNote says why ITL has no per-run interval, in the result and in
// the table.
const pooledNote = "pooled ITL has no per-run interval: the gaps inside one request are correlated, so they are not independent draws"

// ciKey is a metric's key in llmbench.ci: "ttft_ms".
func ciKey(metric string) string { return metric + "_ms" }

// ciObject builds llmbench.ci (docs/confidence.md):
//
//	{"confidence": 0.95,
//	 "ttft_ms": {"n": 400, "mean": {"low", "high"}, "median": {...}, "p99": {...} | null},
//	 "itl_ms": null, ..., "notes": [...]}
//
// one entry per reported metric in the table's order, figures in ms. A
// null interval does not exist; notes say why (the n a percentile needs,
// ITL's pooling).
func ciObject(s *metrics.Summary) *Object {
	c := &s.CI
	o := NewObject()
	o.Set("confidence", c.Confidence)
	notes := []string{}
	for i := range c.Metrics {
		m := &c.Metrics[i]
		key := ciKey(m.Metric)
		if m.Pooled {
			o.Set(key, nil)
			notes = append(notes, key+": "+pooledNote)
			continue
		}
		mo := NewObject()
		mo.Set("n", m.N)
		mo.Set("mean", intervalValue(m.Mean))
		if m.Mean == nil {
			notes = append(notes, fmt.Sprintf("%s mean: needs at least 2 values, has %d", key, m.N))
		}
		mo.Set("median", intervalValue(m.Median))
		if m.Median == nil {
			notes = append(notes, fmt.Sprintf("%s median: %s", key, missingWhy(c, 50, m.N)))
		}
		for j, p := range s.Percentiles {
			label := "p" + PercentileLabel(p)
			mo.Set(label, intervalValue(m.Percentiles[j]))
			if m.Percentiles[j] == nil {
				notes = append(notes, fmt.Sprintf("%s %s: %s", key, label, missingWhy(c, p, m.N)))
			}
		}
		o.Set(key, mo)
	}
	o.Set("notes", notes)
	return o
}

// missingWhy says why percentile p has no interval over n values.
func missingWhy(c *metrics.CI, p float64, n int) string {
	need := c.MinSamples(p)
	if need == 0 {
		return "the sample's extreme has no distribution-free interval"
	}
	return fmt.Sprintf("needs at least %d values, has %d", need, n)
}

// intervalValue is {"low", "high"}, or nil (null) when iv is nil.
func intervalValue(iv *stats.Interval) any {
	if iv == nil {
		return nil
	}
	o := NewObject()
	o.Set("low", iv.Low)
	o.Set("high", iv.High)
	return o
}

// ConfidenceLines returns llmbench's "Confidence Intervals" section, in
// the table's layout: per reported metric, the mean's interval as
// "mean ± half-width" and the median's and each percentile's as
// "[low, high]" (they are not symmetric), in ms. A figure without an
// interval shows "*", with one line under the section per percentile
// saying the n it needs. ITL says it has none. Empty when no metric is
// reported.
func ConfidenceLines(s *metrics.Summary) []string {
	c := &s.CI
	if len(c.Metrics) == 0 {
		return nil
	}
	conf := strconv.FormatFloat(100*c.Confidence, 'f', -1, 64) + "%"
	l := []string{Center(" Confidence Intervals, "+conf+" (llmbench) ", '=')}
	var footnotes []string
	noted := map[string]bool{}
	for i := range c.Metrics {
		m := &c.Metrics[i]
		names := metricNames[m.Metric]
		l = append(l, Center(names.header, '-'))
		if m.Pooled {
			l = append(l, "No per-run interval: pooled ITL gaps inside one", "request are correlated (not independent draws).")
			continue
		}
		mean := "*"
		if m.Mean != nil {
			mid, half := (m.Mean.Low+m.Mean.High)/2, (m.Mean.High-m.Mean.Low)/2
			mean = fixed2(mid) + " ± " + fixed2(half)
		} else {
			footnote(&footnotes, noted, "mean", fmt.Sprintf("* Mean: needs at least 2 values (%s has %d)", names.short, m.N))
		}
		l = append(l, lineStr("Mean "+names.short+" (ms):", mean),
			lineStr("Median "+names.short+" (ms):", rangeText(m.Median)))
		if m.Median == nil {
			footnote(&footnotes, noted, "median", "* Median: "+needText(c, 50, names.short, m.N))
		}
		for j, p := range s.Percentiles {
			label := "P" + PercentileLabel(p)
			l = append(l, lineStr(label+" "+names.short+" (ms):", rangeText(m.Percentiles[j])))
			if m.Percentiles[j] == nil {
				footnote(&footnotes, noted, label, "* "+label+": "+needText(c, p, names.short, m.N))
			}
		}
	}
	l = append(l, footnotes...)
	return append(l, strings.Repeat("=", Width))
}

// footnote adds line once per key (the first metric lacking the figure
// names its n; the others' differ only when some requests lack a TPOT).
func footnote(lines *[]string, noted map[string]bool, key, line string) {
	if !noted[key] {
		noted[key] = true
		*lines = append(*lines, line)
	}
}

// needText is a percentile footnote: "needs n >= 368 for an interval
// (TTFT has 100)".
func needText(c *metrics.CI, p float64, short string, n int) string {
	need := c.MinSamples(p)
	if need == 0 {
		return "a sample's extreme has no interval"
	}
	return fmt.Sprintf("needs n >= %d for an interval (%s has %d)", need, short, n)
}

// rangeText is "[low, high]" in ms, or "*" when there is no interval.
func rangeText(iv *stats.Interval) string {
	if iv == nil {
		return "*"
	}
	return "[" + fixed2(iv.Low) + ", " + fixed2(iv.High) + "]"
}
