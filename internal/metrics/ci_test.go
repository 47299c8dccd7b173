package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/stats"
)

// ciRecords builds n successful requests with skewed latencies (a
// lognormal-ish TTFT, so the tails are far apart) and 3 output tokens;
// every fifth has a failure next to it.
func ciRecords(n int, seed uint64) []record.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	three := 3
	var recs []record.Record
	for i := range n {
		ttft := 0.05 * (1 + rng.ExpFloat64())
		gaps := []float64{0.01 + 0.01*rng.Float64(), 0.01 + 0.02*rng.Float64()}
		recs = append(recs, record.Record{
			Index: len(recs), Success: true, PromptLen: 10, OutputTokens: &three,
			TTFT: ttft, ITL: gaps, Latency: ttft + gaps[0] + gaps[1], StartTime: float64(i) * 0.01,
		})
		if i%5 == 0 {
			recs = append(recs, record.Record{Index: len(recs), Error: "boom", StartTime: float64(i) * 0.01})
		}
	}
	return recs
}

// wantCI is the second route to a metric's intervals: a full sort and
// stats.PercentileCI (the summary selects ranks instead), stats.MeanCI.
func wantCI(values []float64, pcts []float64) MetricCI {
	c := MetricCI{N: len(values)}
	if _, iv, ok := stats.MeanCI(values, 0.95); ok {
		c.Mean = &stats.Interval{Low: iv.Low * 1000, High: iv.High * 1000}
	}
	sorted := slices.Sorted(slices.Values(values))
	at := func(q float64) *stats.Interval {
		lo, hi, ok := stats.PercentileCI(sorted, q, 0.95)
		if !ok {
			return nil
		}
		return &stats.Interval{Low: lo * 1000, High: hi * 1000}
	}
	c.Median = at(0.5)
	for _, p := range pcts {
		c.Percentiles = append(c.Percentiles, at(p/100))
	}
	return c
}

func TestSummaryCI(t *testing.T) {
	t.Parallel()
	pcts := []float64{50, 90, 99, 99.9, 100}
	tests := []struct {
		name string
		n    int
		// exist says which of mean, median and pcts have an interval.
		exist []bool
	}{
		{"one value: no mean interval, no percentile", 1, []bool{false, false, false, false, false, false, false}},
		{"five: a mean, still no median (needs 6)", 5, []bool{true, false, false, false, false, false, false}},
		{"100: p50, p90 but no p99 (needs 368)", 100, []bool{true, true, true, true, false, false, false}},
		{"400: p99 exists, p99.9 does not", 400, []bool{true, true, true, true, true, false, false}},
		{"5000: p99.9 exists, p100 never", 5000, []bool{true, true, true, true, true, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs := ciRecords(tc.n, uint64(tc.n))
			s := mustSummarize(t, recs, Params{Duration: 10, Percentiles: pcts,
				PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL}})
			if s.CI.Confidence != 0.95 {
				t.Fatalf("confidence = %v", s.CI.Confidence)
			}
			if len(s.CI.Metrics) != len(s.Metrics) {
				t.Fatalf("%d CI entries for %d metrics", len(s.CI.Metrics), len(s.Metrics))
			}
			values := map[string][]float64{}
			for _, r := range recs {
				if r.Success {
					values[TTFT] = append(values[TTFT], r.TTFT)
					values[TPOT] = append(values[TPOT], (r.Latency-r.TTFT)/2)
					values[E2EL] = append(values[E2EL], r.Latency)
				}
			}
			for i, c := range s.CI.Metrics {
				if c.Metric != s.Metrics[i].Metric {
					t.Fatalf("CI entry %d is %s, metric is %s", i, c.Metric, s.Metrics[i].Metric)
				}
				if c.Metric == ITL {
					if !c.Pooled || c.Mean != nil || c.Median != nil || len(c.Percentiles) != len(pcts) || c.Percentiles[0] != nil {
						t.Errorf("ITL has intervals: %+v", c)
					}
					continue
				}
				want := wantCI(values[c.Metric], pcts)
				checkInterval(t, c.Metric+" mean", c.Mean, want.Mean)
				checkInterval(t, c.Metric+" median", c.Median, want.Median)
				for j := range pcts {
					checkInterval(t, fmt.Sprintf("%s p%v", c.Metric, pcts[j]), c.Percentiles[j], want.Percentiles[j])
				}
				got := []bool{c.Mean != nil, c.Median != nil}
				for _, iv := range c.Percentiles {
					got = append(got, iv != nil)
				}
				if !slices.Equal(got, tc.exist) {
					t.Errorf("%s: intervals exist %v, want %v", c.Metric, got, tc.exist)
				}
				if c.N != tc.n {
					t.Errorf("%s n = %d, want %d", c.Metric, c.N, tc.n)
				}
			}
		})
	}
}

func checkInterval(t *testing.T, name string, got, want *stats.Interval) {
	t.Helper()
	switch {
	case (got == nil) != (want == nil):
		t.Errorf("%s = %v, want %v", name, got, want)
	case got != nil && (got.Low != want.Low || got.High != want.High):
		t.Errorf("%s = [%v, %v], want [%v, %v]", name, got.Low, got.High, want.Low, want.High)
	}
}

// TestSummaryCILeavesVLLMFigures checks that adding the intervals left
// vLLM's statistics bit for bit as describe alone computes them (the
// mean's interval must read the list before describe, the quantiles'
// after it).
func TestSummaryCILeavesVLLMFigures(t *testing.T) {
	t.Parallel()
	recs := ciRecords(1000, 3)
	pcts := []float64{50, 99}
	s := mustSummarize(t, recs, Params{Duration: 10, Percentiles: pcts, PercentileMetrics: []string{TTFT}})
	var ttfts []float64
	for _, r := range recs {
		if r.Success {
			ttfts = append(ttfts, r.TTFT)
		}
	}
	want := describe(TTFT, ttfts, pcts)
	got := s.Metrics[0]
	if got.Mean != want.Mean || got.Std != want.Std || got.Median != want.Median || !slices.Equal(got.Percentiles, want.Percentiles) {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
}
