package sim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// completion sends one streamed completion and reads it to the end.
func completion(t *testing.T, hc *http.Client, url, prompt string, maxTokens int) {
	t.Helper()
	body := fmt.Sprintf(`{"prompt":%q,"max_tokens":%d,"ignore_eos":true,"stream":true}`, prompt, maxTokens)
	resp := post(t, hc, url+"/v1/completions", body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
}

// TestPreemptionOverHTTP: a KV cache too small for the batch's contexts
// preempts (vllm:num_preemptions_total > 0), and every client still gets
// all its tokens.
func TestPreemptionOverHTTP(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.MaxModelLen = 512
	cfg.Batching = Batching{MaxNumSeqs: 16, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 1e6,
		DecodeBase: 2 * time.Millisecond, KVCacheTokens: 512}
	run := startSim(t, cfg)
	hc := newHTTPClient()
	const n, tokens = 8, 200 // 8 contexts of ~200 tokens in 32 blocks of 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { completion(t, hc, run.URL, fmt.Sprintf("request number %d", i), tokens) })
	}
	wg.Wait()
	got := waitMetrics(t, run.URL+"/metrics", map[string]float64{
		"vllm:generation_tokens_total": n * tokens, "vllm:num_requests_running": 0, "vllm:kv_cache_usage_perc": 0})
	if p := got["vllm:num_preemptions_total"]; p < 1 {
		t.Errorf("%v preemptions with %d contexts of %d tokens in a 512-token KV cache, want > 0", p, n, tokens)
	}
	if c := got["vllm:e2e_request_latency_seconds_count"]; c != n {
		t.Errorf("e2e histogram counted %v requests, want %d", c, n)
	}
}

// TestPrefixCacheOverHTTP: a repeated prompt hits the prefix cache and
// skips its prefill; POST /reset_prefix_cache makes it cold again.
func TestPrefixCacheOverHTTP(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.KeepTruth = true
	// 1,000 prompt words at 5,000 tokens/s: 200 ms of prefill when cold.
	cfg.Batching = Batching{MaxNumSeqs: 8, MaxNumBatchedTokens: 4096, PrefillTokensPerSec: 5000,
		DecodeBase: 2 * time.Millisecond, KVCacheTokens: 16384}
	run := startSim(t, cfg)
	hc := newHTTPClient()
	prompt := strings.Repeat("alpha beta gamma delta ", 250)
	ttft := func() time.Duration {
		completion(t, hc, run.URL, prompt, 4)
		tr := run.Server.Truth()
		last := tr[len(tr)-1]
		return last.Chunks[0].Due.Sub(last.Arrival)
	}
	metrics := run.URL + "/metrics"
	cold := ttft()
	m := scrapeMetrics(t, metrics)
	if m["vllm:prefix_cache_queries_total"] != 1001 || m["vllm:prefix_cache_hits_total"] != 0 {
		t.Errorf("first request: queries %v hits %v, want 1001 and 0", m["vllm:prefix_cache_queries_total"], m["vllm:prefix_cache_hits_total"])
	}
	warm := ttft()
	m = scrapeMetrics(t, metrics)
	// 1,001 tokens (with BOS) are 62 full blocks: 992 tokens hit.
	if m["vllm:prefix_cache_hits_total"] != 992 {
		t.Errorf("second request: hits %v, want 992", m["vllm:prefix_cache_hits_total"])
	}
	// Model time, not wall time: cold pays 200 ms of prefill, warm 9 tokens.
	if cold < 200*time.Millisecond || warm > cold-150*time.Millisecond {
		t.Errorf("TTFT cold %v, warm %v: want the warm request to skip the prefill", cold, warm)
	}
	resp := post(t, hc, run.URL+"/reset_prefix_cache", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reset_prefix_cache: status %d", resp.StatusCode)
	}
	again := ttft()
	m = scrapeMetrics(t, metrics)
	if m["vllm:prefix_cache_hits_total"] != 992 || again < 200*time.Millisecond {
		t.Errorf("after reset: hits %v (want still 992), TTFT %v (want cold)", m["vllm:prefix_cache_hits_total"], again)
	}
	// Turned off, nothing is cached or counted.
	cfg.NoPrefixCache = true
	off := startSim(t, cfg)
	completion(t, hc, off.URL, prompt, 4)
	completion(t, hc, off.URL, prompt, 4)
	if m := scrapeMetrics(t, off.URL+"/metrics"); m["vllm:prefix_cache_queries_total"] != 0 || m["vllm:prefix_cache_hits_total"] != 0 {
		t.Errorf("prefix cache off: queries %v hits %v", m["vllm:prefix_cache_queries_total"], m["vllm:prefix_cache_hits_total"])
	}
}

// TestVLLMFamilies: /metrics exposes vLLM's families with vLLM's buckets
// and request_success_total by finish reason.
func TestVLLMFamilies(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.EOSRate = 0.5
	run := startSim(t, cfg)
	hc := newHTTPClient()
	for i := range 4 {
		body := fmt.Sprintf(`{"prompt":"family test %d","max_tokens":50,"stream":true}`, i)
		resp := post(t, hc, run.URL+"/v1/completions", body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get(run.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(b)
	for _, want := range []string{
		"# TYPE vllm:num_preemptions_total counter", "# TYPE vllm:prefix_cache_queries_total counter",
		"# TYPE vllm:prefix_cache_hits_total counter", "# TYPE vllm:request_success_total counter",
		`vllm:request_success_total{finished_reason="stop",model_name="llmbench-sim"}`,
		"# TYPE vllm:time_to_first_token_seconds histogram", `vllm:time_to_first_token_seconds_bucket{model_name="llmbench-sim",le="2560"}`,
		"# TYPE vllm:inter_token_latency_seconds histogram", `vllm:inter_token_latency_seconds_bucket{model_name="llmbench-sim",le="0.025"}`,
		"# TYPE vllm:e2e_request_latency_seconds histogram", `vllm:e2e_request_latency_seconds_bucket{model_name="llmbench-sim",le="7680"}`,
		"# TYPE vllm:request_queue_time_seconds histogram", "# TYPE vllm:request_prefill_time_seconds histogram",
		"# TYPE vllm:request_decode_time_seconds histogram", `vllm:time_to_first_token_seconds_count{model_name="llmbench-sim"} 4`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	m := scrapeMetrics(t, run.URL+"/metrics")
	if m["vllm:request_queue_time_seconds_count"] != 4 {
		t.Errorf("queue histogram count %v, want 4", m["vllm:request_queue_time_seconds_count"])
	}
}

// TestDCGM: the DCGM listener's energy counter grows and its utilisation
// follows the engine's busy time.
func TestDCGM(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Batching = Batching{MaxNumSeqs: 4, MaxNumBatchedTokens: 256, PrefillTokensPerSec: 1e6,
		DecodeBase: 5 * time.Millisecond, KVCacheTokens: 16384}
	run := startSim(t, cfg)
	h := run.Server.DCGMHandler(DefaultDCGM)
	scrape := func() map[string]float64 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		out := map[string]float64{}
		for _, line := range strings.Split(rec.Body.String(), "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			name, rest, _ := strings.Cut(line, "{")
			_, val, _ := strings.Cut(rest, "} ")
			var v float64
			fmt.Sscan(val, &v)
			out[name] = v
		}
		return out
	}
	a := scrape()
	completion(t, newHTTPClient(), run.URL, "busy engine", 40) // 40 steps of 5 ms
	b := scrape()
	if b["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"] <= a["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"] {
		t.Errorf("energy %v -> %v, want growth", a["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"], b["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"])
	}
	if b["DCGM_FI_DEV_GPU_UTIL"] <= 0 || b["DCGM_FI_DEV_GPU_UTIL"] > 100 || b["DCGM_FI_DEV_POWER_USAGE"] <= DefaultDCGM.IdleW {
		t.Errorf("util %v power %v after 200 ms of steps", b["DCGM_FI_DEV_GPU_UTIL"], b["DCGM_FI_DEV_POWER_USAGE"])
	}
	if b["DCGM_FI_DEV_FB_USED"] != DefaultDCGM.FBUsedMiB {
		t.Errorf("FB used %v", b["DCGM_FI_DEV_FB_USED"])
	}
}
