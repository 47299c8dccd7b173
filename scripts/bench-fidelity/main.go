// Command bench-fidelity checks llmbench's measurements against the
// simulator's ground truth: it starts the simulator in fixed mode (every
// request gets -ttft and -itl regardless of load) with its ground truth
// kept, runs the same step (internal/bench) and OpenAI client that "llmbench run" uses
// with -streams requests sent at once, then matches each record to the
// server's record of the same request (by x-request-id) and compares
//
//   - TTFT: client (send -> first chunk read) vs server (arrival -> first
//     chunk write start);
//   - ITL: client gaps between chunk reads vs server gaps between writes;
//
// reporting the means and their difference in ms, and the simulator's own
// lateness (token-chunk write start - the time it was due). By default the simulator
// runs in this process; -sim-bin runs "llmbench sim" as its own process
// (build it first with go build -o /tmp/llmbench ./cmd/llmbench), so client
// and server have separate Go runtimes, as against a real server. They still
// share this machine's cores, so the difference bounds what the client adds.
//
//	go run ./scripts/bench-fidelity -streams 1,100,500,1000
//	go run ./scripts/bench-fidelity -streams 100 -sim-bin /tmp/llmbench
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/sim"
)

// serverTruth is what the server did for one request, in nanoseconds on
// the server's clock: arrival and the write start of each token chunk.
type serverTruth struct {
	arrival int64
	writes  []int64
	late    []int64 // write start - due, per token chunk (the simulator's own lateness)
}

func main() {
	streamsList := flag.String("streams", "1,100,500,1000", "comma list of concurrent stream counts")
	tokens := flag.Int("tokens", 100, "output tokens per request")
	ttft := flag.Duration("ttft", 50*time.Millisecond, "simulator TTFT")
	itl := flag.Duration("itl", 10*time.Millisecond, "simulator ITL")
	chat := flag.Bool("chat", false, "use /v1/chat/completions")
	simBin := flag.String("sim-bin", "", "run this llmbench binary's sim as a separate process (default: in-process)")
	flag.Parse()
	fmt.Printf("%-8s %-8s %12s %12s %9s %9s %12s %12s %9s %8s %10s %10s %9s\n", "streams", "ok", "ttft-client", "ttft-server", "Δttft", "Δttft-p99", "itl-client", "itl-server", "Δitl", "chunks", "late-p50", "late-p99", "late<1ms")
	for _, f := range strings.Split(*streamsList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 5000 {
			fmt.Fprintf(os.Stderr, "bench-fidelity: bad stream count %q (1..5000)\n", f)
			os.Exit(2)
		}
		if err := run(n, *tokens, *ttft, *itl, *chat, *simBin); err != nil {
			fmt.Fprintln(os.Stderr, "bench-fidelity:", err)
			os.Exit(1)
		}
	}
}

// server is a running simulator and a way to collect its ground truth.
type server struct {
	url   string
	truth func() (map[string]serverTruth, error)
	stop  func()
}

func tokenChunk(kind string) bool { return kind == sim.ChunkToken || kind == sim.ChunkRole }

func startInProcess(ctx context.Context, cfg sim.Config) (*server, error) {
	cfg.KeepTruth = true
	srv, err := sim.Start(ctx, cfg, "")
	if err != nil {
		return nil, err
	}
	return &server{url: srv.URL, stop: func() { _ = srv.Stop(context.Background()) },
		truth: func() (map[string]serverTruth, error) {
			out := map[string]serverTruth{}
			for _, tr := range srv.Server.Truth() {
				st := serverTruth{arrival: srv.Server.UnixNano(tr.Arrival)}
				for _, c := range tr.Chunks {
					if tokenChunk(c.Kind) {
						st.writes = append(st.writes, srv.Server.UnixNano(c.WriteStart))
					}
					if !c.Due.IsZero() {
						st.late = append(st.late, int64(c.WriteStart.Sub(c.Due)))
					}
				}
				out[tr.RequestID] = st
			}
			return out, nil
		}}, nil
}

func startProcess(ctx context.Context, bin string, ttft, itl time.Duration) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	dir, err := os.MkdirTemp("", "bench-fidelity")
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "truth.jsonl")
	cmd := exec.CommandContext(ctx, bin, "sim", "--mode", "fixed", "--ttft", ttft.String(), "--itl", itl.String(),
		"--listen", addr, "--truth-log", logPath)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	url := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; {
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("%s sim did not come up on %s", bin, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Signal(syscall.SIGINT)
			_ = cmd.Wait()
		}
	}
	return &server{url: url, stop: func() { stop(); os.RemoveAll(dir) },
		truth: func() (map[string]serverTruth, error) {
			stop() // the log is complete once the process has exited
			f, err := os.Open(logPath)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			out := map[string]serverTruth{}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				var line struct {
					RequestID string `json:"request_id"`
					ArrivalNS int64  `json:"arrival_unix_ns"`
					Chunks    []struct {
						Kind         string `json:"kind"`
						DueNS        int64  `json:"due_unix_ns"`
						WriteStartNS int64  `json:"write_start_unix_ns"`
					} `json:"chunks"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					return nil, fmt.Errorf("truth log: %w", err)
				}
				st := serverTruth{arrival: line.ArrivalNS}
				for _, c := range line.Chunks {
					if tokenChunk(c.Kind) {
						st.writes = append(st.writes, c.WriteStartNS)
					}
					if c.DueNS != 0 {
						st.late = append(st.late, c.WriteStartNS-c.DueNS)
					}
				}
				out[line.RequestID] = st
			}
			return out, sc.Err()
		}}, nil
}

func run(n, tokens int, ttft, itl time.Duration, chat bool, simBin string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg := sim.DefaultConfig()
	cfg.Mode = sim.ModeFixed
	cfg.TTFT, cfg.ITL = ttft, itl
	var srv *server
	var err error
	if simBin != "" {
		srv, err = startProcess(ctx, simBin, ttft, itl)
	} else {
		srv, err = startInProcess(ctx, cfg)
	}
	if err != nil {
		return err
	}
	defer srv.stop()

	api, path := openai.Completions, "/v1/completions"
	if chat {
		api, path = openai.Chat, "/v1/chat/completions"
	}
	client, err := openai.New(openai.Config{URL: srv.url + path, API: api, MaxConcurrency: n})
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
	// The warm-ups send the first request without its id, as a run's do.
	p := &bench.Plan{Backend: client, Requests: reqs, NumWarmups: n,
		Load: bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: n}}
	res, err := bench.Execute(ctx, p, bench.Hooks{})
	if err != nil {
		return err
	}
	truth, err := srv.truth()
	if err != nil {
		return err
	}

	var deltas []float64
	var late []int64
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
		if len(tr.writes) != len(r.ITL)+1 {
			return fmt.Errorf("request %d: server wrote %d token chunks, client saw %d", r.Index, len(tr.writes), len(r.ITL)+1)
		}
		nReq++
		late = append(late, tr.late...)
		server := float64(tr.writes[0]-tr.arrival) / 1e9
		cTTFT += r.TTFT
		sTTFT += server
		deltas = append(deltas, r.TTFT-server)
		for i, g := range r.ITL {
			cITL += g
			sITL += float64(tr.writes[i+1]-tr.writes[i]) / 1e9
			nGap++
		}
	}
	if nReq == 0 || nGap == 0 {
		return fmt.Errorf("%d streams: no successful request to compare", n)
	}
	slices.Sort(deltas)
	slices.Sort(late)
	within := 0
	for _, l := range late {
		if l <= int64(time.Millisecond) {
			within++
		}
	}
	ms := func(sum float64, k int) float64 { return 1e3 * sum / float64(k) }
	fmt.Printf("%-8d %-8d %12.3f %12.3f %9.3f %9.3f %12.3f %12.3f %9.3f %8d %10.3f %10.3f %8.1f%%\n", n, ok,
		ms(cTTFT, nReq), ms(sTTFT, nReq), ms(cTTFT-sTTFT, nReq), 1e3*deltas[len(deltas)*99/100],
		ms(cITL, nGap), ms(sITL, nGap), ms(cITL-sITL, nGap), nGap+nReq,
		float64(late[len(late)/2])/1e6, float64(late[len(late)*99/100])/1e6, 100*float64(within)/float64(len(late)))
	return nil
}
