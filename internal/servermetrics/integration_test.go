package servermetrics_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/servermetrics"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// slotServer is an independent server (not the simulator): it streams
// 20 "tokens" per request, 4 requests at a time, the rest wait, and
// exposes vLLM's names for what it does.
type slotServer struct {
	slots            chan struct{}
	running, waiting atomic.Int64
	generated        atomic.Int64
}

func (s *slotServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" {
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"x\"} %d\n", s.running.Load())
		fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"x\"} %d\n", s.waiting.Load())
		fmt.Fprintf(w, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"x\"} %d\n", s.generated.Load())
		return
	}
	s.waiting.Add(1)
	s.slots <- struct{}{}
	s.waiting.Add(-1)
	s.running.Add(1)
	defer func() { s.running.Add(-1); <-s.slots }()
	fl := w.(http.Flusher)
	for range 20 {
		time.Sleep(5 * time.Millisecond)
		s.generated.Add(1)
		_, _ = io.WriteString(w, "data: tok\n\n")
		fl.Flush()
	}
}

// TestIndependentServer: 16 concurrent clients against 4 slots give
// running_max 4, waiting_max >= 8, and the server's generation tokens
// equal to what the clients counted.
func TestIndependentServer(t *testing.T) {
	t.Parallel()
	s := &slotServer{slots: make(chan struct{}, 4)}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := servermetrics.Start(t.Context(), servermetrics.Config{URLs: []string{srv.URL + "/metrics"}, Interval: 250 * time.Millisecond})
	c.Mark()
	var clientTokens atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 2 {
				resp, err := http.Get(srv.URL + "/v1/completions")
				if err != nil {
					t.Error(err)
					return
				}
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "data: ") {
						clientTokens.Add(1)
					}
				}
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	res := c.Stop()
	sum := res.Summary
	notes := res.CrossCheck(servermetrics.Client{OutputTokens: int(clientTokens.Load())})
	if sum.Scrapes < 3 || sum.RunningMax == nil || *sum.RunningMax != 4 || sum.WaitingMax == nil || *sum.WaitingMax < 8 {
		t.Errorf("scrapes %d running_max %v waiting_max %v; want >= 3, 4, >= 8", sum.Scrapes, val(sum.RunningMax), val(sum.WaitingMax))
	}
	// Exact when Mark's and Stop's scrapes both answered; a busy machine
	// (the race detector on shared cores) can time one out, and then the
	// edge is interpolated from its neighbours.
	exact := sum.ScrapeErrors == 0
	if g := val(sum.GenerationTokens); exact && g != float64(clientTokens.Load()) || len(notes) != 0 {
		t.Errorf("generation_tokens %v, client %d, scrape errors %d, notes %q", g, clientTokens.Load(), sum.ScrapeErrors, notes)
	}
}

func val(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// sweep runs closed-loop steps of users against url, each user sending
// one request of maxTokens, and reads the server's metrics per step.
func sweep(t *testing.T, url string, users []int, maxTokens int) []servermetrics.StepSummary {
	return sweepWith(t, url, users, maxTokens, func(step, user int) string { return fmt.Sprintf("step %d user %d", step, user) }, false)
}

// sweepWith is sweep with prompts of its own, optionally POSTing
// /reset_prefix_cache before each step (what --reset-prefix-cache does).
func sweepWith(t *testing.T, url string, users []int, maxTokens int, prompt func(step, user int) string, reset bool) []servermetrics.StepSummary {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var steps []servermetrics.StepSummary
	for i, n := range users {
		if reset {
			resp, err := hc.Post(url+"/reset_prefix_cache", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		c := servermetrics.Start(t.Context(), servermetrics.Config{URLs: []string{url + "/metrics"}, Interval: 250 * time.Millisecond})
		c.Mark()
		var wg sync.WaitGroup
		for u := range n {
			wg.Go(func() {
				body := fmt.Sprintf(`{"prompt":%q,"max_tokens":%d,"ignore_eos":true,"stream":true}`, prompt(i, u), maxTokens)
				resp, err := hc.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
		res := c.Stop()
		for _, w := range res.Warnings {
			t.Log(w)
		}
		if res.Summary.Scrapes < 2 && n >= 8 {
			// Timeout is at most Interval by design; a machine this busy
			// (the race detector on two shared cores) cannot answer in it.
			t.Skipf("NOT TESTED: only %d scrapes answered within %v at %d users: the machine is too busy for this test", res.Summary.Scrapes, 250*time.Millisecond, n)
		}
		steps = append(steps, servermetrics.StepSummary{Load: float64(n), Unit: "users", Server: &res.Summary})
	}
	return steps
}

// TestCauseFromSimulator: a sweep over the simulator with 8 batch slots
// and room in the KV cache saturates at the batch limit; with a small KV
// cache it preempts and the cause is the KV cache.
func TestCauseFromSimulator(t *testing.T) {
	t.Parallel()
	t.Run("batch_limit", func(t *testing.T) {
		t.Parallel()
		cfg := sim.DefaultConfig()
		cfg.Batching = sim.Batching{MaxNumSeqs: 8, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 1e6,
			DecodeBase: 4 * time.Millisecond, DecodePerSeq: 250 * time.Microsecond, KVCacheTokens: 65536}
		steps := sweep(t, simtest.Serve(t, cfg).URL, []int{1, 2, 4, 8, 16, 32}, 100)
		cause, detail := servermetrics.Cause(steps)
		if cause != servermetrics.CauseBatchLimit || !strings.Contains(detail, "full at 8 running requests") {
			t.Errorf("cause %q: %s", cause, detail)
			logSteps(t, steps)
		}
	})
	t.Run("kv_cache", func(t *testing.T) {
		t.Parallel()
		cfg := sim.DefaultConfig()
		cfg.MaxModelLen = 512
		cfg.Batching = sim.Batching{MaxNumSeqs: 64, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 1e6,
			DecodeBase: time.Millisecond, KVCacheTokens: 512}
		// Contexts of ~400 tokens in a 512-token cache: any two running
		// together outgrow it, however the arrivals spread out.
		steps := sweep(t, simtest.Serve(t, cfg).URL, []int{1, 2, 8}, 400)
		cause, detail := servermetrics.Cause(steps)
		knee := steps[len(steps)-1].Server
		if cause != servermetrics.CauseKVCache || knee.Preemptions == nil || *knee.Preemptions < 1 {
			t.Errorf("cause %q (%s), preemptions %v", cause, detail, val(knee.Preemptions))
			logSteps(t, steps)
		}
	})
}

// TestPrefixCacheContamination: the same prompts at every step of a
// sweep (no shared prefixes between users) give a rising hit rate and a
// warning, unless the prefix cache is reset before each step.
func TestPrefixCacheContamination(t *testing.T) {
	t.Parallel()
	prompt := func(_, user int) string { return strings.Repeat(fmt.Sprintf("user%d word ", user), 40) }
	for _, reset := range []bool{false, true} {
		t.Run(fmt.Sprintf("reset=%v", reset), func(t *testing.T) {
			t.Parallel()
			cfg := sim.DefaultConfig()
			cfg.Batching = sim.Batching{MaxNumSeqs: 8, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 1e5,
				DecodeBase: 2 * time.Millisecond, KVCacheTokens: 65536}
			steps := sweepWith(t, simtest.Serve(t, cfg).URL, []int{1, 2, 4}, 20, prompt, reset)
			w := servermetrics.PrefixCacheWarning(steps, false)
			if reset && w != "" || !reset && !strings.Contains(w, "prefix-cache hit rate rose") {
				t.Errorf("warning %q", w)
				for _, st := range steps {
					t.Logf("%v users: hit rate %v", st.Load, val(st.Server.PrefixCacheHitRate))
				}
			}
		})
	}
}

func logSteps(t *testing.T, steps []servermetrics.StepSummary) {
	t.Helper()
	for _, st := range steps {
		s := st.Server
		t.Logf("%v users: running mean %v max %v, waiting mean %v max %v, kv %v, preemptions %v, scrapes %d, errors %d",
			st.Load, val(s.RunningMean), val(s.RunningMax), val(s.WaitingMean), val(s.WaitingMax), val(s.KVCacheUsageMax), val(s.Preemptions), s.Scrapes, s.ScrapeErrors)
	}
}
