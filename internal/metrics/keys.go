package metrics

// Result keys: the names vllm bench serve gives its figures in the saved
// result JSON (docs/metrics.md#result-json-keys), written by report and read
// back by capacity, compare, htmlreport and the sweep driver. One
// spelling here, so a reader cannot look for a key the writer never sets.
const (
	KeyDuration              = "duration"
	KeyCompleted             = "completed"
	KeyFailed                = "failed"
	KeyTotalInputTokens      = "total_input_tokens"
	KeyTotalOutputTokens     = "total_output_tokens"
	KeyRequestThroughput     = "request_throughput"
	KeyRequestGoodput        = "request_goodput"
	KeyOutputThroughput      = "output_throughput"
	KeyTotalTokenThroughput  = "total_token_throughput"
	KeyMaxOutputTokensPerS   = "max_output_tokens_per_s"
	KeyMaxConcurrentRequests = "max_concurrent_requests"
	KeyMaxConcurrency        = "max_concurrency"
)

// Per-metric statistic keys read by name elsewhere; every one is
// StatKey(stat, metric), which TestStatKeyConstants checks.
const (
	KeyMeanTTFT   = "mean_ttft_ms"
	KeyMedianTTFT = "median_ttft_ms"
	KeyP99TTFT    = "p99_ttft_ms"
	KeyMeanTPOT   = "mean_tpot_ms"
	KeyMedianTPOT = "median_tpot_ms"
	KeyP90TPOT    = "p90_tpot_ms"
	KeyP99TPOT    = "p99_tpot_ms"
	KeyMeanITL    = "mean_itl_ms"
	KeyP99ITL     = "p99_itl_ms"
	KeyMeanE2EL   = "mean_e2el_ms"
	KeyP99E2EL    = "p99_e2el_ms"
)

// StatKey is the result key of one statistic of a per-request metric in
// milliseconds: StatKey("p99", TTFT) is "p99_ttft_ms", StatKey("mean",
// E2EL) "mean_e2el_ms" — vLLM's "<stat>_<metric>_ms". Percentile stats
// are "p" and the percentile as vLLM formats it (report.PercentileLabel).
func StatKey(stat, metric string) string { return stat + "_" + metric + "_ms" }
