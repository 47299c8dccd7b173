package servermetrics

import "strings"

// Metric types as the result names them (Prometheus' own words).
const (
	TypeCounter   = "counter"
	TypeGauge     = "gauge"
	TypeHistogram = "histogram"
	// TypeUntyped is a family whose exposition gave no TYPE; it is
	// summarised as a gauge.
	TypeUntyped = "untyped"
)

// Known is every metric family the collector keeps without being asked
// (--server-metric NAME adds more), with the type each server declares.
// Names are as they appear on the wire in the Prometheus text format:
// vLLM's and SGLang's counters end in _total, TGI's do not. The lists
// come from ../shared/conformance/server-metrics/ (vLLM v0.26.0, SGLang
// v0.5.17, TGI v3.3.7), plus vLLM's older spellings (see Renamed) and the
// NVIDIA DCGM exporter's GPU fields. Anything else a server exposes is
// dropped at parse time, which bounds the collector's memory.
var Known = map[string]string{
	// vLLM (v0.26.0 names).
	"vllm:cache_config_info":                     TypeGauge,
	"vllm:e2e_request_latency_seconds":           TypeHistogram,
	"vllm:engine_sleep_state":                    TypeGauge,
	"vllm:estimated_flops_per_gpu_total":         TypeCounter,
	"vllm:estimated_read_bytes_per_gpu_total":    TypeCounter,
	"vllm:estimated_write_bytes_per_gpu_total":   TypeCounter,
	"vllm:external_prefix_cache_hits_total":      TypeCounter,
	"vllm:external_prefix_cache_queries_total":   TypeCounter,
	"vllm:generation_tokens_total":               TypeCounter,
	"vllm:inter_token_latency_seconds":           TypeHistogram,
	"vllm:iteration_tokens_total":                TypeHistogram,
	"vllm:kv_cache_usage_perc":                   TypeGauge,
	"vllm:mm_cache_hits_total":                   TypeCounter,
	"vllm:mm_cache_queries_total":                TypeCounter,
	"vllm:num_preemptions_total":                 TypeCounter,
	"vllm:num_requests_running":                  TypeGauge,
	"vllm:num_requests_waiting":                  TypeGauge,
	"vllm:num_requests_waiting_by_reason":        TypeGauge,
	"vllm:prefix_cache_hits_total":               TypeCounter,
	"vllm:prefix_cache_queries_total":            TypeCounter,
	"vllm:prompt_tokens_by_source_total":         TypeCounter,
	"vllm:prompt_tokens_cached_total":            TypeCounter,
	"vllm:prompt_tokens_total":                   TypeCounter,
	"vllm:request_decode_time_seconds":           TypeHistogram,
	"vllm:request_generation_tokens":             TypeHistogram,
	"vllm:request_inference_time_seconds":        TypeHistogram,
	"vllm:request_max_num_generation_tokens":     TypeHistogram,
	"vllm:request_params_max_tokens":             TypeHistogram,
	"vllm:request_params_n":                      TypeHistogram,
	"vllm:request_prefill_kv_computed_tokens":    TypeHistogram,
	"vllm:request_prefill_time_seconds":          TypeHistogram,
	"vllm:request_prompt_tokens":                 TypeHistogram,
	"vllm:request_queue_time_seconds":            TypeHistogram,
	"vllm:request_success_total":                 TypeCounter,
	"vllm:request_time_per_output_token_seconds": TypeHistogram,
	"vllm:time_to_first_token_seconds":           TypeHistogram,
	// vLLM's older spellings (Renamed maps them to the names above).
	"vllm:gpu_cache_usage_perc":                 TypeGauge,
	"vllm:time_per_output_token_seconds":        TypeHistogram,
	"vllm:gpu_prefix_cache_hits_total":          TypeCounter,
	"vllm:gpu_prefix_cache_queries_total":       TypeCounter,
	"vllm:gpu_prefix_cache_hit_rate":            TypeGauge,
	"vllm:num_requests_swapped":                 TypeGauge,
	"vllm:cpu_cache_usage_perc":                 TypeGauge,
	"vllm:avg_generation_throughput_toks_per_s": TypeGauge,
	"vllm:avg_prompt_throughput_toks_per_s":     TypeGauge,

	// SGLang (needs --enable-metrics).
	"sglang:cache_hit_rate":               TypeGauge,
	"sglang:cached_tokens_total":          TypeCounter,
	"sglang:e2e_request_latency_seconds":  TypeHistogram,
	"sglang:gen_throughput":               TypeGauge,
	"sglang:generation_tokens_total":      TypeCounter,
	"sglang:inter_token_latency_seconds":  TypeHistogram,
	"sglang:kv_available_tokens":          TypeGauge,
	"sglang:kv_used_tokens":               TypeGauge,
	"sglang:max_total_num_tokens":         TypeGauge,
	"sglang:num_aborted_requests_total":   TypeCounter,
	"sglang:num_queue_reqs":               TypeGauge,
	"sglang:num_requests_total":           TypeCounter,
	"sglang:num_retracted_reqs":           TypeGauge,
	"sglang:num_retracted_requests_total": TypeCounter,
	"sglang:num_running_reqs":             TypeGauge,
	"sglang:num_used_tokens":              TypeGauge,
	"sglang:prompt_tokens_total":          TypeCounter,
	"sglang:queue_time_seconds":           TypeHistogram,
	"sglang:time_to_first_token_seconds":  TypeHistogram,
	"sglang:token_usage":                  TypeGauge,
	"sglang:utilization":                  TypeGauge,

	// Hugging Face TGI (counters without _total).
	"tgi_batch_concat":                         TypeCounter,
	"tgi_batch_concat_duration":                TypeHistogram,
	"tgi_batch_current_max_tokens":             TypeGauge,
	"tgi_batch_current_size":                   TypeGauge,
	"tgi_batch_decode_duration":                TypeHistogram,
	"tgi_batch_filter_duration":                TypeHistogram,
	"tgi_batch_forward_duration":               TypeHistogram,
	"tgi_batch_inference_count":                TypeCounter,
	"tgi_batch_inference_duration":             TypeHistogram,
	"tgi_batch_inference_failure":              TypeCounter,
	"tgi_batch_inference_success":              TypeCounter,
	"tgi_batch_max_total_tokens":               TypeGauge,
	"tgi_batch_next_size":                      TypeHistogram,
	"tgi_batch_total_tokens":                   TypeGauge,
	"tgi_queue_size":                           TypeGauge,
	"tgi_request_count":                        TypeCounter,
	"tgi_request_duration":                     TypeHistogram,
	"tgi_request_failure":                      TypeCounter,
	"tgi_request_generated_tokens":             TypeHistogram,
	"tgi_request_inference_duration":           TypeHistogram,
	"tgi_request_input_length":                 TypeHistogram,
	"tgi_request_max_new_tokens":               TypeHistogram,
	"tgi_request_mean_time_per_token_duration": TypeHistogram,
	"tgi_request_queue_duration":               TypeHistogram,
	"tgi_request_skipped_tokens":               TypeHistogram,
	"tgi_request_success":                      TypeCounter,
	"tgi_request_validation_duration":          TypeHistogram,

	// NVIDIA DCGM exporter (its own URL, e.g. :9400/metrics).
	"DCGM_FI_DEV_GPU_UTIL":                 TypeGauge,   // percent, 0..100
	"DCGM_FI_DEV_FB_USED":                  TypeGauge,   // MiB
	"DCGM_FI_DEV_FB_FREE":                  TypeGauge,   // MiB
	"DCGM_FI_DEV_POWER_USAGE":              TypeGauge,   // W
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": TypeCounter, // mJ since boot
	"DCGM_FI_PROF_GR_ENGINE_ACTIVE":        TypeGauge,   // ratio
	"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE":      TypeGauge,   // ratio
	"DCGM_FI_PROF_DRAM_ACTIVE":             TypeGauge,   // ratio
}

// Renamed maps vLLM's older family names to the current ones: a result
// keys a family by its current name (Family.ExposedAs keeps the name
// the server used), so dashboards, charts and the summary read one name
// whatever the server's version. gpu_cache_usage_perc became
// kv_cache_usage_perc in 0.9.2, time_per_output_token_seconds became
// inter_token_latency_seconds in 0.11, gpu_prefix_cache_* became
// prefix_cache_*.
var Renamed = map[string]string{
	"vllm:gpu_cache_usage_perc":           "vllm:kv_cache_usage_perc",
	"vllm:time_per_output_token_seconds":  "vllm:inter_token_latency_seconds",
	"vllm:gpu_prefix_cache_hits_total":    "vllm:prefix_cache_hits_total",
	"vllm:gpu_prefix_cache_queries_total": "vllm:prefix_cache_queries_total",
}

// Canonical returns the name a family is kept under: the current vLLM
// name for an old one, the name itself otherwise.
func Canonical(name string) string {
	if n, ok := Renamed[name]; ok {
		return n
	}
	return name
}

// role is one quantity the summary reads, and the families (by canonical
// name) that carry it on each server, in order of preference.
type role []string

// The summary's roles. A server exposes at most one family per role (a
// TGI server has no vllm: names), so the first present family wins.
var (
	roleRunning     = role{"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size"}
	roleWaiting     = role{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size"}
	roleKVUsage     = role{"vllm:kv_cache_usage_perc", "sglang:token_usage"}
	rolePreemptions = role{"vllm:num_preemptions_total", "sglang:num_retracted_requests_total"}
	roleGenTokens   = role{"vllm:generation_tokens_total", "sglang:generation_tokens_total"}
	rolePromptTok   = role{"vllm:prompt_tokens_total", "sglang:prompt_tokens_total"}
	// TGI counts tokens only per request, in histograms: their _sum over
	// the window is the total.
	roleGenTokensHist = role{"tgi_request_generated_tokens"}
	rolePromptTokHist = role{"tgi_request_input_length"}
	rolePrefixHits    = role{"vllm:prefix_cache_hits_total", "sglang:cached_tokens_total"}
	// rolePrefixQueries pairs with rolePrefixHits index by index: SGLang's
	// hit rate is cached prompt tokens over prompt tokens.
	rolePrefixQueries = role{"vllm:prefix_cache_queries_total", "sglang:prompt_tokens_total"}
	roleQueueTime     = role{"vllm:request_queue_time_seconds", "sglang:queue_time_seconds", "tgi_request_queue_duration"}
	roleTTFT          = role{"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"}
	roleGPUUtil       = role{"DCGM_FI_DEV_GPU_UTIL"}
	rolePower         = role{"DCGM_FI_DEV_POWER_USAGE"}
	roleEnergy        = role{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"}
)

// serverOf names the server a family comes from, by its prefix.
func serverOf(name string) string {
	switch {
	case strings.HasPrefix(name, "vllm:"):
		return "vllm"
	case strings.HasPrefix(name, "sglang:"):
		return "sglang"
	case strings.HasPrefix(name, "tgi_"):
		return "tgi"
	}
	return ""
}
