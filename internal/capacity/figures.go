package capacity

import (
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// Figures is one run's numeric figures, keyed as its result is: the
// throughputs, error_rate (the server's failures over the requests it
// had a chance to answer, see Row.ErrorRate), vLLM's latency statistics
// (mean_ttft_ms, p99.9_itl_ms, ...), request_goodput when goodput was
// set and the per-user view. A sweep row's Metrics, and what run_stats
// (stats.RunsByKey) summarises over the runs of a step or of run --runs.
func Figures(sum *metrics.Summary) map[string]float64 {
	m := map[string]float64{
		"error_rate":                     0,
		metrics.KeyRequestThroughput:     sum.RequestThroughput,
		metrics.KeyOutputThroughput:      sum.OutputThroughput,
		metrics.KeyTotalTokenThroughput:  sum.TotalTokenThroughput,
		metrics.KeyMaxConcurrentRequests: float64(sum.MaxConcurrentRequests),
	}
	canceled := canceledOf(sum)
	if n := sum.Completed + sum.Failed - canceled; n > 0 {
		m["error_rate"] = float64(sum.Failed-canceled) / float64(n)
	}
	if sum.RequestGoodput != nil {
		m[metrics.KeyRequestGoodput] = *sum.RequestGoodput
	}
	for i := range sum.Metrics {
		st := &sum.Metrics[i]
		m["mean_"+st.Metric+"_ms"] = st.Mean
		m["median_"+st.Metric+"_ms"] = st.Median
		m["std_"+st.Metric+"_ms"] = st.Std
		for j, p := range sum.Percentiles {
			m[pctKey(p)+"_"+st.Metric+"_ms"] = st.Percentiles[j]
		}
	}
	pu := &sum.PerUser
	m["mean_per_user_tps"] = pu.MeanTPS
	m["median_per_user_tps"] = pu.MedianTPS
	for i, q := range metrics.PerUserPercentiles {
		if i < len(pu.LowTPS) {
			m[pctKey(q)+"_per_user_tps"] = pu.LowTPS[i]
		}
	}
	m["system_output_tps"] = pu.SystemTPS
	m["token_goodput"] = pu.TokenGoodput
	return m
}

// canceledOf counts the failed requests of class canceled.
func canceledOf(sum *metrics.Summary) int {
	for _, c := range sum.Stream.Errors {
		if c.Name == record.ErrCanceled {
			return c.N
		}
	}
	return 0
}
