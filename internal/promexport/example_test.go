package promexport_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/runner"
	"github.com/llmbench/llmbench/internal/sim"
)

// Example shows where a run calls the exporter: New and Serve before the
// run (--metrics-addr), the gauges when a phase starts, OnDone as the
// runner's callback, the self-check and Push (--pushgateway) after it,
// and stop with the linger (--metrics-linger) last.
func Example() {
	ctx := context.Background()
	cfg := sim.DefaultConfig()
	cfg.Mode, cfg.TTFT, cfg.ITL = sim.ModeFixed, 2*time.Millisecond, time.Millisecond
	srv, err := sim.Start(ctx, cfg, "")
	if err != nil {
		panic(err)
	}
	defer srv.Stop(ctx)
	client, err := openai.New(openai.Config{URL: srv.URL + "/v1/completions", MaxConcurrency: 4})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	// Before the run.
	exp := promexport.New(promexport.Config{RunID: "example", Backend: "openai", Model: cfg.Model,
		Goodput: map[string]float64{"ttft": 500}})
	addr, stop, err := exp.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	exp.SetTargetRate(promexport.PhaseMain, 50)
	exp.SetConcurrency(promexport.PhaseMain, 4)

	// The run: the exporter sees each record on the runner's collector
	// goroutine, never on a stream's.
	reqs := make([]backend.Request, 20)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, Model: cfg.Model, Prompt: "hello there", PromptLen: 2, MaxTokens: 5, IgnoreEOS: true}
	}
	rc := &runner.Config{Backend: client, Requests: reqs, MaxConcurrency: 4, OnDone: exp.OnDone(promexport.PhaseMain)}
	if _, err := runner.Run(ctx, rc); err != nil {
		panic(err)
	}

	// After the run.
	exp.SetSelfCheck(map[string]float64{"dispatch_lag_p99_seconds": 0.001}, "valid")
	// With --pushgateway: exp.Push(ctx, url, "llmbench").
	printSamples("http://"+addr+"/metrics", "llmbench_requests_total", "llmbench_output_tokens_total", "llmbench_client_valid")
	// A run passes --metrics-linger (say 30 s): stop then returns after
	// Prometheus' next scrape, or after the linger. No Prometheus here.
	if err := stop(0); err != nil {
		panic(err)
	}
	// Output:
	// llmbench_client_valid{backend="openai",model="llmbench-sim",run_id="example"} 1
	// llmbench_output_tokens_total{backend="openai",model="llmbench-sim",phase="main",run_id="example"} 100
	// llmbench_requests_total{backend="openai",model="llmbench-sim",outcome="failure",phase="main",run_id="example"} 0
	// llmbench_requests_total{backend="openai",model="llmbench-sim",outcome="success",phase="main",run_id="example"} 20
}

// printSamples scrapes url and prints the samples of the named metrics.
func printSamples(url string, names ...string) {
	resp, err := http.Get(url)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), "{")
		for _, n := range names {
			if name == n {
				fmt.Println(sc.Text())
			}
		}
	}
}
