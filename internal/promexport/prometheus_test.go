package promexport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/promexport/dashboard"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/runner"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// needTool returns the path of a Prometheus tool (prometheus, promtool),
// skipping the test loudly when it is missing — and failing it under CI,
// where .ci/run installs Debian's prometheus package.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found in PATH: install Debian's prometheus package (apt-get install -y prometheus; .ci/run does) to test against a real Prometheus", name)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip("NOT TESTED: prometheus not installed: " + msg)
	return ""
}

// httpc bounds every request the test makes: a hung Prometheus fails the
// test instead of stalling it.
var httpc = &http.Client{Timeout: 10 * time.Second}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// syncBuffer collects a child's output for failure messages.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// promServer is a real Prometheus on loopback scraping one target.
type promServer struct {
	url string
	out *syncBuffer
}

// startPrometheus starts bin scraping the exporter (job llmbench) and the
// simulator's /metrics (job sim) every second, with its data in a
// temporary directory, and waits until it has scraped both.
func startPrometheus(t *testing.T, bin, target, simTarget string) *promServer {
	t.Helper()
	dir := t.TempDir()
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: llmbench
    static_configs:
      - targets: [%q]
  - job_name: sim
    static_configs:
      - targets: [%q]
`, target, simTarget)
	confPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin,
		"--config.file="+confPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen,
		"--web.console.templates="+filepath.Join(dir, "consoles"),
		"--web.console.libraries="+filepath.Join(dir, "console_libraries"),
		"--log.level=warn")
	ps := &promServer{url: "http://" + listen, out: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = ps.out, ps.out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			t.Logf("prometheus output:\n%s", ps.out.String())
		}
	})
	poll(t, 30*time.Second, "prometheus ready", func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("prometheus exited:\n%s", ps.out.String())
		default:
		}
		resp, err := httpc.Get(ps.url + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	// Prometheus holds back the first scrape until service discovery has
	// settled (about 5 s): wait for it, so the run is watched live.
	poll(t, 30*time.Second, "first scrapes", func() (bool, string) {
		v, ok := ps.scalar(t, `sum(up)`)
		return ok && v == 2, fmt.Sprintf("sum(up) = %v (present %v)", v, ok)
	})
	return ps
}

// poll calls f until it returns true or timeout passes (then fails with
// f's last note). The interval is short: Prometheus scrapes every second.
func poll(t *testing.T, timeout time.Duration, what string, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, note := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v: %s", what, timeout, note)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sample is one element of an instant query's vector.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s sample) float(t *testing.T) float64 {
	str, _ := s.Value[1].(string)
	v, err := strconv.ParseFloat(str, 64)
	if err != nil {
		t.Fatalf("sample value %v: %v", s.Value, err)
	}
	return v
}

// query runs an instant PromQL query and returns its vector.
func (p *promServer) query(t *testing.T, q string) ([]sample, error) {
	resp, err := httpc.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", q, body.Error)
	}
	return body.Data.Result, nil
}

// scalar runs q and returns its single value (ok false when empty).
func (p *promServer) scalar(t *testing.T, q string) (float64, bool) {
	res, err := p.query(t, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		return 0, false
	}
	return res[0].float(t), true
}

// benchmark runs 300 requests against srv (Poisson-ish bursts at 100
// req/s, so TTFT varies with the simulator's queue), with the exporter fed
// from OnDone exactly as a run does.
func benchmark(t *testing.T, srv *sim.Running, exp *promexport.Exporter) *runner.Result {
	t.Helper()
	client, err := openai.New(openai.Config{URL: srv.URL + "/v1/completions", MaxConcurrency: 24, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	const n = 300
	plan, err := load.Schedule(n, load.Arrivals{Rate: 100, Burstiness: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]backend.Request, n)
	for i := range reqs {
		words := 20 + i%50
		reqs[i] = backend.Request{Index: i, ID: fmt.Sprintf("it-%d", i), Model: "llmbench-sim",
			Prompt: strings.Repeat("token ", words), PromptLen: words, MaxTokens: 8 + i%40, IgnoreEOS: true}
	}
	rc := &runner.Config{Backend: client, Requests: reqs, Schedule: plan.Offsets, MaxConcurrency: 24,
		OnDone: exp.OnDone(promexport.PhaseMain)}
	exp.SetTargetRate(promexport.PhaseMain, 100)
	exp.SetConcurrency(promexport.PhaseMain, 24)
	if err := runner.Prepare(t.Context(), rc); err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(t.Context(), rc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRealPrometheus: a real Prometheus scrapes a real benchmark against
// the simulator; what it stores equals the run's own figures — request
// and token counts exactly, every TTFT bucket exactly, and
// histogram_quantile(0.99) of TTFT within one bucket of the p99 that
// internal/metrics computes from the same records.
func TestRealPrometheus(t *testing.T) {
	bin := needTool(t, "prometheus")
	exp := promexport.New(promexport.Config{RunID: "it", Backend: "openai", Model: "sim"})
	addr, stop, err := exp.Serve(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := simtest.Start(t, simtest.Preset("fast"))
	prom := startPrometheus(t, bin, addr, srv.Addr)
	res := benchmark(t, srv, exp)
	sum, err := metrics.Summarize(res.Records, metrics.Params{Duration: res.Duration.Seconds(),
		Percentiles: []float64{99}, PercentileMetrics: []string{metrics.TTFT}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Completed < 250 {
		t.Fatalf("only %d of %d requests succeeded: %v", sum.Completed, len(res.Records), sum.FailedErrors)
	}

	// Wait for a scrape taken after the run: every figure final at once.
	sel := `{run_id="it",phase="main"}`
	want := map[string]float64{
		`sum(llmbench_requests_total` + sel + `)`:                                   float64(len(res.Records)),
		`sum(llmbench_requests_total{outcome="success",phase="main"})`:              float64(sum.Completed),
		`sum(llmbench_input_tokens_total` + sel + `)`:                               float64(sum.TotalInput),
		`sum(llmbench_output_tokens_total` + sel + `)`:                              float64(sum.TotalOutput),
		`sum(llmbench_ttft_seconds_count` + sel + `)`:                               float64(sum.Completed),
		`sum(llmbench_itl_seconds_count` + sel + `)`:                                float64(itlCount(res.Records)),
		`sum(llmbench_good_output_tokens_total` + sel + `)`:                         float64(sum.TotalOutput),
		`max(llmbench_target_request_rate` + sel + `)`:                              100,
		`count(llmbench_ttft_seconds_bucket` + sel + `)`:                            float64(len(promexport.TTFTBuckets) + 1),
		`sum(llmbench_requests_total{outcome="failure",phase="main"}) or vector(0)`: float64(sum.Failed),
		// The server's own count of the same tokens, scraped from its
		// /metrics under vLLM's name.
		`sum(vllm:generation_tokens_total{job="sim"})`: float64(sum.TotalOutput),
		`sum(vllm:num_requests_running{job="sim"})`:    0,
	}
	poll(t, 30*time.Second, "final scrape", func() (bool, string) {
		for q, w := range want {
			got, ok := prom.scalar(t, q)
			if !ok || got != w {
				return false, fmt.Sprintf("%s = %v (present %v), want %v", q, got, ok, w)
			}
		}
		return true, ""
	})
	checkTTFTBuckets(t, prom, res.Records)

	// The p99 Prometheus derives from the buckets against the run's own.
	q := `histogram_quantile(0.99, sum by (le) (llmbench_ttft_seconds_bucket` + sel + `))`
	got, ok := prom.scalar(t, q)
	if !ok {
		t.Fatalf("%s: no result", q)
	}
	p99 := sum.Metrics[0].Percentiles[0] / 1000
	gi, wi := bucketIndex(got), bucketIndex(p99)
	t.Logf("p99 TTFT: Prometheus %.4f s (bucket %d), llmbench %.4f s (bucket %d), %d requests, %d ITL gaps",
		got, gi, p99, wi, sum.Completed, itlCount(res.Records))
	if gi < wi-1 || gi > wi+1 {
		t.Errorf("histogram_quantile(0.99) = %v s is not within one bucket of the run's p99 TTFT %v s", got, p99)
	}
	checkDashboardQueries(t, prom)
	// Queried before stop: once the target is gone, Prometheus marks its
	// series stale and instant queries return nothing.
	if err := stop(time.Minute); err != nil {
		t.Error(err)
	}
}

func itlCount(recs []record.Record) int {
	n := 0
	for _, r := range recs {
		if r.Success {
			n += len(r.ITL)
		}
	}
	return n
}

// bucketIndex is the index of the classic TTFT bucket holding v.
func bucketIndex(v float64) int {
	i, _ := slices.BinarySearch(promexport.TTFTBuckets, v)
	return i
}

// checkTTFTBuckets compares every stored TTFT bucket with the count of
// successful records at or under its bound.
func checkTTFTBuckets(t *testing.T, prom *promServer, recs []record.Record) {
	t.Helper()
	res, err := prom.query(t, `llmbench_ttft_seconds_bucket{run_id="it",phase="main"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(promexport.TTFTBuckets)+1 {
		t.Fatalf("%d TTFT buckets stored, want %d", len(res), len(promexport.TTFTBuckets)+1)
	}
	for _, s := range res {
		le, err := strconv.ParseFloat(s.Metric["le"], 64)
		if err != nil {
			t.Fatalf("le %q: %v", s.Metric["le"], err)
		}
		want := 0
		for _, r := range recs {
			if r.Success && r.TTFT <= le {
				want++
			}
		}
		if got := s.float(t); got != float64(want) || math.IsNaN(got) {
			t.Errorf("ttft bucket le=%s: Prometheus %v, records %d", s.Metric["le"], got, want)
		}
	}
}

// checkDashboardQueries runs every query of the Grafana dashboard, with
// its variables set to "All", against the real Prometheus: each must
// parse and evaluate; the TTFT and server panels must find series.
func checkDashboardQueries(t *testing.T, prom *promServer) {
	t.Helper()
	b, err := dashboard.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$__rate_interval", "5s", "$run_id", ".*", "$backend", ".*", "$model", ".*", "$phase", ".*")
	n := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			n++
			res, err := prom.query(t, vars.Replace(tg.Expr))
			if err != nil {
				t.Errorf("dashboard panel %q: %v", p.Title, err)
				continue
			}
			if (strings.HasPrefix(p.Title, "TTFT") || strings.HasPrefix(p.Title, "Server:")) && len(res) == 0 {
				t.Errorf("dashboard panel %q: %s found no series", p.Title, vars.Replace(tg.Expr))
			}
		}
	}
	if n == 0 {
		t.Error("no dashboard queries")
	}
	// The run was scraped while it went on, not only at its end.
	if v, _ := prom.scalar(t, `count_over_time(llmbench_ttft_seconds_count{run_id="it"}[5m])`); v < 3 {
		t.Errorf("%v scrapes of the run, want at least 3 (one per second of load)", v)
	}
}
