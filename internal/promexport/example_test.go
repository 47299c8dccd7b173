package promexport_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
)

// Example shows where a run calls the exporter: New and Serve before the
// run (--metrics-addr), the gauges when a phase starts, OnDone from the
// step's sink, the self-check and Push (--pushgateway) after it,
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

	// The run: the exporter sees each record through the step's sink, on
	// its collector goroutine, never on a stream's.
	reqs := make([]backend.Request, 20)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, Model: cfg.Model, Prompt: "hello there", PromptLen: 2, MaxTokens: 5, IgnoreEOS: true}
	}
	p := &bench.Plan{Backend: client, Requests: reqs,
		Load: bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: 4}}
	if _, err := bench.Execute(ctx, p, bench.Hooks{Sink: recordSink(exp.OnDone(promexport.PhaseMain))}); err != nil {
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

// recordSink is a bench.Sink that hands each record to a function: the
// least a step needs to feed the exporter. llmbench's own sink
// (internal/promexport/promsink) also sets the self-check at the step's end.
type recordSink func(r *record.Record)

func (f recordSink) Begin(time.Time, record.Header) error { return nil }
func (f recordSink) Record(r *record.Record)              { f(r) }
func (f recordSink) End(*bench.Outcome)                   {}
