package report

import (
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestResultWritesTheKeyConstants: every result key metrics names as a
// constant for its readers (capacity, compare, htmlreport) is a key the
// result writer sets, so a reader cannot wait for a key never written.
func TestResultWritesTheKeyConstants(t *testing.T) {
	t.Parallel()
	p := record.ConformanceDefaults()
	p.DurationS, p.Date = 2, "20260101-000000"
	p.PercentileMetrics = "ttft,tpot,itl,e2el"
	p.MetricPercentiles = "90,99"
	p.MaxConcurrency = ptr(2)
	recs := testRecords()
	o, err := Result(summaryFor(t, &p, recs), &p, recs, ResultOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keys := o.Keys()
	for _, k := range []string{
		metrics.KeyDuration, metrics.KeyCompleted, metrics.KeyFailed, metrics.KeyTotalInputTokens,
		metrics.KeyTotalOutputTokens, metrics.KeyRequestThroughput, metrics.KeyRequestGoodput,
		metrics.KeyOutputThroughput, metrics.KeyTotalTokenThroughput, metrics.KeyMaxOutputTokensPerS,
		metrics.KeyMaxConcurrentRequests, metrics.KeyMaxConcurrency,
		metrics.KeyMeanTTFT, metrics.KeyMedianTTFT, metrics.KeyP99TTFT, metrics.KeyMeanTPOT,
		metrics.KeyMedianTPOT, metrics.KeyP90TPOT, metrics.KeyP99TPOT, metrics.KeyMeanITL,
		metrics.KeyP99ITL, metrics.KeyMeanE2EL, metrics.KeyP99E2EL,
	} {
		if !slices.Contains(keys, k) {
			t.Errorf("the result has no %q", k)
		}
	}
}
