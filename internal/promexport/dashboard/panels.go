package dashboard

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// quantiles are the percentiles drawn for each latency.
var quantiles = []struct {
	q     float64
	label string
}{{0.5, "p50"}, {0.95, "p95"}, {0.99, "p99"}}

// latencyPanel draws p50/p95/p99 of histogram metric per run, from the
// classic buckets' rates over Grafana's $__rate_interval.
func latencyPanel(title, desc, metric string, sla float64) cog.Builder[dashboard.Panel] {
	p := panel(title, desc, "s", 12)
	for i, q := range quantiles {
		p = p.WithTarget(query(string(rune('A'+i)), fmt.Sprintf(
			`histogram_quantile(%g, sum by (run_id, le) (rate(%s_bucket{%s}[$__rate_interval])))`, q.q, metric, sel),
			q.label+" {{run_id}}"))
	}
	if sla > 0 {
		p = slaLine(p, sla)
	}
	return p
}

func latencyPanels() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		latencyPanel("TTFT — time to first token",
			"From just before the request is sent to its first token chunk; successful requests. Dashed line: the p99 SLA of alerts.yml.",
			"llmbench_ttft_seconds", TTFTSLA),
		latencyPanel("ITL — inter-token latency",
			"Each gap between consecutive token chunks. Dashed line: the p99 SLA of alerts.yml.",
			"llmbench_itl_seconds", ITLSLA),
		latencyPanel("TPOT — time per output token",
			"(E2EL − TTFT) / (output tokens − 1), requests with more than one output token (vLLM's definition).",
			"llmbench_tpot_seconds", 0),
		latencyPanel("E2EL — end-to-end latency",
			"From just before the request is sent to its last token chunk; successful requests.",
			"llmbench_e2el_seconds", 0),
	}
}

func loadPanels() []cog.Builder[dashboard.Panel] {
	rate := func(metric, by, extra string) string {
		return fmt.Sprintf(`sum by (%s) (rate(%s{%s%s}[$__rate_interval]))`, by, metric, sel, extra)
	}
	return []cog.Builder[dashboard.Panel]{
		panel("Request throughput", "Finished requests per second by outcome, against the schedule's target rate.", "reqps", 8).
			WithTarget(query("A", rate("llmbench_requests_total", "run_id, outcome", ""), "{{outcome}} {{run_id}}")).
			WithTarget(query("B", `max by (run_id) (llmbench_target_request_rate{`+sel+`})`, "target {{run_id}}")),
		panel("Token throughput and goodput",
			"Output tokens per second of successful requests; goodput counts only requests that met every --goodput SLO (all successful ones when none is set). Input tokens for scale.", "short", 8).
			WithTarget(query("A", rate("llmbench_output_tokens_total", "run_id", ""), "output tok/s {{run_id}}")).
			WithTarget(query("B", rate("llmbench_good_output_tokens_total", "run_id", ""), "goodput tok/s {{run_id}}")).
			WithTarget(query("C", rate("llmbench_input_tokens_total", "run_id", ""), "input tok/s {{run_id}}")),
		panel("Requests in flight", "Requests sent and not finished, against the concurrency cap or number of users (0 = no cap).", "short", 8).
			WithTarget(query("A", `sum by (run_id) (llmbench_requests_in_flight{`+sel+`})`, "in flight {{run_id}}")).
			WithTarget(query("B", `max by (run_id) (llmbench_max_concurrency{`+sel+`})`, "cap {{run_id}}")),
	}
}

func healthPanels() []cog.Builder[dashboard.Panel] {
	failed := `sum by (run_id) (rate(llmbench_requests_total{outcome="failure", ` + sel + `}[$__rate_interval]))`
	all := `sum by (run_id) (rate(llmbench_requests_total{` + sel + `}[$__rate_interval]))`
	return []cog.Builder[dashboard.Panel]{
		panel("Errors by class", "Failed requests per second by error class (http_429, http_5xx, timeout, stream_truncated, ...).", "reqps", 6).
			WithTarget(query("A", `sum by (error_class) (rate(llmbench_request_errors_total{`+sel+`}[$__rate_interval]))`, "{{error_class}}")),
		slaLine(panel("Error rate", "Failed / finished requests. Dashed line: the error budget of alerts.yml.", "percentunit", 6).
			WithTarget(query("A", failed+" / "+all, "{{run_id}}")), ErrorRateSLA),
		panel("Client timing", "The client's own delays: p99 time waiting for a concurrency slot (client queue time) and how late it sent its latest request against the schedule (dispatch lag).", "s", 6).
			WithTarget(query("A", `histogram_quantile(0.99, sum by (run_id, le) (rate(llmbench_client_queue_seconds_bucket{`+sel+`}[$__rate_interval])))`, "queue p99 {{run_id}}")).
			WithTarget(query("B", `max by (run_id) (llmbench_dispatch_lag_seconds{`+sel+`})`, "dispatch lag {{run_id}}")),
		panel("Client self-check", "1 while the client's self-check says the measurement is valid (0: degraded or invalid — the latencies above are then not the server's alone), and the values it judged.", "short", 6).
			WithTarget(query("A", `min by (run_id) (llmbench_client_valid{`+selRun+`})`, "valid {{run_id}}")).
			WithTarget(query("B", `llmbench_client_check{`+selRun+`}`, "{{check}} {{run_id}}")),
	}
}

// serverPanels read the server's own /metrics under vLLM's names (a vLLM
// server, or llmbench sim): its queue beside the client's view. vLLM
// labels its series model_name, the name clients send as model.
func serverPanels() []cog.Builder[dashboard.Panel] {
	srv := `model_name=~"$model"`
	return []cog.Builder[dashboard.Panel]{
		panel("Server: requests running and waiting",
			"The server's own count (vLLM's /metrics): requests in the batch and waiting for a slot. Beside the client's requests in flight, it shows where requests queue.", "short", 12).
			WithTarget(query("A", `sum by (model_name) (vllm:num_requests_running{`+srv+`})`, "running {{model_name}}")).
			WithTarget(query("B", `sum by (model_name) (vllm:num_requests_waiting{`+srv+`})`, "waiting {{model_name}}")),
		panel("Server: KV-cache usage and generation rate",
			"KV-cache usage (1 = full) and generated tokens per second as the server counts them.", "short", 12).
			WithTarget(query("A", `max by (model_name) (vllm:kv_cache_usage_perc{`+srv+`})`, "KV cache {{model_name}}")).
			WithTarget(query("B", `sum by (model_name) (rate(vllm:generation_tokens_total{`+srv+`}[$__rate_interval]))`, "tok/s {{model_name}}")),
	}
}
