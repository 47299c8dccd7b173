// Command bench-fidelity checks llmbench's measurements against the
// simulator's ground truth: it starts the simulator in fixed mode (every
// request gets -ttft and -itl regardless of load) with its ground-truth log
// in memory, runs the same runner and OpenAI client that "llmbench run"
// uses with -streams requests sent at once, then matches each record to the
// server's record of the same request (by x-request-id) and compares
//
//   - TTFT: client (send -> first chunk read) vs server (arrival -> first
//     chunk write start);
//   - ITL: client gaps between chunk reads vs server gaps between writes;
//
// reporting the mean of each and the difference in ms. Client and server
// share this machine's cores, so the difference bounds what the client adds.
//
//	go run ./scripts/bench-fidelity -streams 100
//	go run ./scripts/bench-fidelity -streams 1,100,500,1000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/runner"
	"github.com/llmbench/llmbench/internal/sim"
)

func main() {
	streamsList := flag.String("streams", "1,100,500,1000", "comma list of concurrent stream counts")
	tokens := flag.Int("tokens", 100, "output tokens per request")
	ttft := flag.Duration("ttft", 50*time.Millisecond, "simulator TTFT")
	itl := flag.Duration("itl", 10*time.Millisecond, "simulator ITL")
	chat := flag.Bool("chat", false, "use /v1/chat/completions")
	flag.Parse()
	fmt.Printf("%-8s %-8s %12s %12s %9s %12s %12s %9s %8s\n", "streams", "ok", "ttft-client", "ttft-server", "Δttft", "itl-client", "itl-server", "Δitl", "chunks")
	for _, f := range strings.Split(*streamsList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 5000 {
			fmt.Fprintf(os.Stderr, "bench-fidelity: bad stream count %q (1..5000)\n", f)
			os.Exit(2)
		}
		if err := run(n, *tokens, *ttft, *itl, *chat); err != nil {
			fmt.Fprintln(os.Stderr, "bench-fidelity:", err)
			os.Exit(1)
		}
	}
}

func run(n, tokens int, ttft, itl time.Duration, chat bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := sim.DefaultConfig()
	cfg.Mode = sim.ModeFixed
	cfg.TTFT, cfg.ITL = ttft, itl
	cfg.KeepTruth = true
	srv, err := sim.Start(ctx, cfg, "")
	if err != nil {
		return err
	}
	defer srv.Stop(context.Background())

	api, path := openai.Completions, "/v1/completions"
	if chat {
		api, path = openai.Chat, "/v1/chat/completions"
	}
	client, err := openai.New(openai.Config{URL: srv.URL + path, API: api, MaxConcurrency: n})
	if err != nil {
		return err
	}
	defer client.Close()
	reqs := make([]backend.Request, n)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, ID: fmt.Sprintf("fid-%d", i), Model: cfg.Model,
			Prompt: "measure the client against the server", PromptLen: 6, MaxTokens: tokens, IgnoreEOS: true}
	}
	// Warm the connection pool so the figures are about streaming, not
	// connection setup (vLLM's runs also reuse connections after warm-up).
	rc := &runner.Config{Backend: client, Requests: reqs, NumWarmups: n, MaxConcurrency: n,
		Warmup: &backend.Request{Model: cfg.Model, Prompt: "warm", MaxTokens: 2, IgnoreEOS: true}}
	if err := runner.Prepare(ctx, rc); err != nil {
		return err
	}
	res, err := runner.Run(ctx, rc)
	if err != nil {
		return err
	}

	truth := map[string]sim.Truth{}
	for _, tr := range srv.Server.Truth() {
		if tr.RequestID != "" {
			truth[tr.RequestID] = tr
		}
	}
	var cTTFT, sTTFT, cITL, sITL float64
	var nReq, nGap, ok int
	for _, r := range res.Records {
		if !r.Success {
			continue
		}
		ok++
		tr, found := truth[reqs[r.Index].ID]
		if !found {
			return fmt.Errorf("no ground truth for request %s", reqs[r.Index].ID)
		}
		var writes []time.Time
		for _, c := range tr.Chunks {
			if c.Kind == sim.ChunkToken || c.Kind == sim.ChunkRole { // what vLLM's client counts as token chunks
				writes = append(writes, c.WriteStart)
			}
		}
		if len(writes) != len(r.ITL)+1 {
			return fmt.Errorf("request %d: server wrote %d token chunks, client saw %d", r.Index, len(writes), len(r.ITL)+1)
		}
		nReq++
		cTTFT += r.TTFT
		sTTFT += writes[0].Sub(tr.Arrival).Seconds()
		for i, g := range r.ITL {
			cITL += g
			sITL += writes[i+1].Sub(writes[i]).Seconds()
			nGap++
		}
	}
	if nReq == 0 || nGap == 0 {
		return fmt.Errorf("%d streams: no successful request to compare", n)
	}
	ms := func(sum float64, k int) float64 { return 1e3 * sum / float64(k) }
	fmt.Printf("%-8d %-8d %12.3f %12.3f %9.3f %12.3f %12.3f %9.3f %8d\n", n, ok,
		ms(cTTFT, nReq), ms(sTTFT, nReq), ms(cTTFT-sTTFT, nReq),
		ms(cITL, nGap), ms(sITL, nGap), ms(cITL-sITL, nGap), nGap+nReq)
	return nil
}
