package sim

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// scrapeMetrics returns the simulator's samples by metric name (the
// simulator's series have no labels but model_name).
func scrapeMetrics(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		_, val, _ := strings.Cut(rest, "} ")
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[name] = v
	}
	return out
}

// waitMetrics polls url until want holds (every listed metric equal).
func waitMetrics(t *testing.T, url string, want map[string]float64) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := scrapeMetrics(t, url)
		bad := ""
		for k, w := range want {
			if got[k] != w {
				bad += fmt.Sprintf(" %s=%v (want %v)", k, got[k], w)
			}
		}
		if bad == "" {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never matched:%s", bad)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMetricsGroundTruth: with two batch slots and four long requests,
// /metrics shows two running, two waiting, four in flight; afterwards the
// token and request counters equal the ground truth.
func TestMetricsGroundTruth(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.KeepTruth = true
	cfg.Batching = Batching{MaxNumSeqs: 2, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 1e6,
		DecodeBase: 20 * time.Millisecond, KVCacheTokens: 10000}
	run := startSim(t, cfg)
	url := run.URL + "/metrics"
	const n, tokens = 4, 100
	var wg sync.WaitGroup
	hc := newHTTPClient()
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"prompt":"request %d","max_tokens":%d,"ignore_eos":true,"stream":true}`, i, tokens)
			resp := post(t, hc, run.URL+"/v1/completions", body)
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
		})
	}
	// Each request needs 100 steps of 20 ms: the state below holds for
	// about two seconds, however late the four arrive.
	got := waitMetrics(t, url, map[string]float64{
		"vllm:num_requests_running": 2, "vllm:num_requests_waiting": 2, "llmbench_sim_http_requests_in_flight": n,
		"llmbench_sim_max_num_seqs": 2})
	if kv := got["vllm:kv_cache_usage_perc"]; kv <= 0 || kv > 1 {
		t.Errorf("kv cache usage %v with two running sequences, want in (0, 1]", kv)
	}
	wg.Wait()
	prompt := 0
	for _, tr := range run.Server.Truth() {
		prompt += tr.PromptTokens
	}
	got = waitMetrics(t, url, map[string]float64{
		"vllm:num_requests_running": 0, "vllm:num_requests_waiting": 0, "llmbench_sim_http_requests_in_flight": 0,
		"vllm:kv_cache_usage_perc": 0, "llmbench_sim_requests_total": n, "llmbench_sim_request_errors_total": 0,
		"vllm:generation_tokens_total": n * tokens, "vllm:prompt_tokens_total": float64(prompt)})
	if got["llmbench_sim_engine_steps_total"] < 2*tokens {
		t.Errorf("%v engine steps for 4 requests of 100 tokens in 2 slots, want >= 200", got["llmbench_sim_engine_steps_total"])
	}
}

// TestMetricsLint: the simulator's metrics pass promlint, except that
// vLLM's names contain colons (kept on purpose: the same queries work
// against vLLM).
func TestMetricsLint(t *testing.T) {
	t.Parallel()
	s, err := New(fastFixed())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(newMetricsCollector(s))
	s.hist.register(reg)
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "vllm:") && strings.Contains(p.Text, "should not contain ':'") {
			continue
		}
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}
