// Command bench-client measures the benchmark client's own timing error and
// cost: it starts a loopback SSE server in-process that writes one chunk
// per -itl to every stream and notes time.Now() just before each write
// (ground truth, same monotonic clock as the client), drives -streams
// requests through load.Schedule/load.Run and the openai client exactly as
// a benchmark run does, and reports
//
//   - stamp lag: client chunk stamp - server write start (p50/p99/max);
//   - dispatch lag: arrival - intended send time (p50/p99/max);
//   - client+server CPU time per chunk.
//
// Server and client share the machine's cores, so the lag is an upper bound
// of what the client adds against a remote server.
//
//	go run ./scripts/bench-client -streams 500 -tokens 100 -itl 10ms
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/load"
)

func main() {
	streams := flag.Int("streams", 200, "number of requests")
	tokens := flag.Int("tokens", 100, "chunks per stream")
	itl := flag.Duration("itl", 10*time.Millisecond, "gap between chunks")
	rate := flag.Float64("rate", 0, "request rate (0 = inf: all at once)")
	maxConc := flag.Int("max-concurrency", 0, "client-side cap (0 = none)")
	flag.Parse()
	if *streams <= 0 || *streams > 20000 || *tokens <= 0 || *tokens > 100000 {
		fmt.Fprintln(os.Stderr, "bench-client: -streams must be 1..20000 and -tokens 1..100000")
		os.Exit(2)
	}
	if err := run(*streams, *tokens, *itl, *rate, *maxConc); err != nil {
		fmt.Fprintln(os.Stderr, "bench-client:", err)
		os.Exit(1)
	}
}

func run(streams, tokens int, itl time.Duration, rate float64, maxConc int) error {
	var mu sync.Mutex
	written := make(map[string][]time.Time, streams)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		id := r.Header.Get("X-Request-Id")
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		f.Flush()
		ts := make([]time.Time, 0, tokens)
		next := time.Now()
		for i := range tokens {
			next = next.Add(itl)
			time.Sleep(time.Until(next))
			ts = append(ts, time.Now())
			fmt.Fprintf(w, "data: {\"id\":\"cmpl-%s\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" tok%d\",\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n", id, i)
			f.Flush()
		}
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", tokens)
		mu.Lock()
		written[id] = ts
		mu.Unlock()
	}))
	defer srv.Close()

	client, err := openai.New(openai.Config{URL: srv.URL + "/v1/completions", MaxConcurrency: maxConc, Timeout: 10 * time.Minute})
	if err != nil {
		return err
	}
	defer client.Close()
	plan, err := load.Schedule(streams, load.Arrivals{Rate: rate})
	if err != nil {
		return err
	}
	resps := make([]backend.Response, streams)
	items := make([]load.Item, streams)
	cpu0, wall0 := cpuTime(), time.Now()
	res := load.Run(context.Background(), plan.Offsets, load.Options{MaxConcurrency: maxConc}, func(ctx context.Context, it load.Item) {
		items[it.Index] = it
		req := backend.Request{Index: it.Index, ID: fmt.Sprint(it.Index), Model: "m", Prompt: "hello", MaxTokens: tokens}
		client.Send(ctx, &req, &resps[it.Index])
	})
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	// A client returns at [DONE], possibly before its handler has stored
	// the write times; Close waits for every handler.
	srv.Close()

	var stamp, dispatch []time.Duration
	failed := 0
	for i, r := range resps {
		dispatch = append(dispatch, items[i].Arrived.Sub(items[i].Intended))
		if r.Err != nil || r.Chunks.Len() != tokens {
			failed++
			continue
		}
		ts := written[fmt.Sprint(i)]
		if len(ts) != tokens {
			failed++
			continue
		}
		for k := range r.Chunks.Len() {
			stamp = append(stamp, r.Chunks.At(k).Sub(ts[k]))
		}
	}
	fmt.Printf("streams %d (sent %d, failed %d), %d chunks each, itl %v, wall %v\n", streams, res.Sent, failed, tokens, itl, wall.Round(time.Millisecond))
	fmt.Printf("stamp lag (client stamp - server write): %s\n", quantiles(stamp))
	fmt.Printf("dispatch lag (arrival - intended):        %s\n", quantiles(dispatch))
	if n := len(stamp); n > 0 {
		fmt.Printf("CPU (client + server) per chunk: %v (%.0f%% of one core)\n", cpu/time.Duration(n), 100*cpu.Seconds()/wall.Seconds())
	}
	if failed > 0 {
		return fmt.Errorf("%d requests failed, e.g. %v", failed, firstErr(resps))
	}
	return nil
}

func firstErr(rs []backend.Response) error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

func quantiles(d []time.Duration) string {
	if len(d) == 0 {
		return "n/a"
	}
	slices.Sort(d)
	q := func(p float64) time.Duration { return d[int(p*float64(len(d)-1))] }
	return fmt.Sprintf("p50 %v  p99 %v  max %v  (n=%d)", q(0.5), q(0.99), d[len(d)-1], len(d))
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
