package calibrate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/load"
)

// Process is the RepetitionFunc that runs each repetition against a
// fresh simulator process started from bin ("bin sim"; "": this very
// binary, which is llmbench), for c.
func Process(bin string, c *Config) (RepetitionFunc, error) {
	bin, err := simBinary(bin)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, streams, requests, row, rep int) (Repetition, int, error) {
		return repetition(ctx, bin, c, streams, requests, fmt.Sprintf("calibrate-%d-%d-", row, rep))
	}, nil
}

// simBinary is the binary that serves the simulator: bin, or this
// program itself ("llmbench sim") when bin is "" (--sim-bin not given).
func simBinary(bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("calibrate: finding this binary to start the simulator: %w", err)
	}
	return self, nil
}

// repetition runs one repetition against a fresh simulator process and
// compares the records with its truth log. Rate +Inf under a cap of
// streams is a closed loop: the first streams requests go at once (each
// dialling its connection unless Preconnect), and each request's end
// sends the next on its kept-alive connection, until the last wave. It
// runs llmbench's own run path: bench.Execute with the same dispatcher,
// client and self-check as "llmbench run".
func repetition(ctx context.Context, bin string, c *Config, streams, requests int, prefix string) (Repetition, int, error) {
	rep := Repetition{Requests: requests}
	dir, err := os.MkdirTemp("", "llmbench-calibrate")
	if err != nil {
		return rep, 0, err
	}
	defer os.RemoveAll(dir)
	truthPath := filepath.Join(dir, "truth.jsonl")
	srv, err := startSimProcess(ctx, bin, truthPath, c.TTFT, c.ITL)
	if err != nil {
		return rep, 0, err
	}
	defer srv.stop()
	client, err := openai.New(openai.Config{URL: srv.url + "/v1/completions", MaxConcurrency: streams})
	if err != nil {
		return rep, 0, err
	}
	defer client.Close()
	reqs := make([]backend.Request, requests)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, ID: prefix + strconv.Itoa(i), Model: "llmbench-sim",
			Prompt: "measure the client against the server", PromptLen: 7, MaxTokens: c.Tokens, IgnoreEOS: true}
	}
	plan := &bench.Plan{Kind: bench.OpenAICompletions, Backend: client, Requests: reqs, IDPrefix: prefix,
		Load:           bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: streams},
		RequestTimeout: 10 * time.Minute, Preconnect: c.Preconnect}
	o, err := bench.Execute(ctx, plan, bench.Hooks{})
	if err != nil {
		return rep, 0, err
	}
	if err := srv.stop(); err != nil {
		return rep, 0, err
	}
	fh, err := os.Open(truthPath)
	if err != nil {
		return rep, 0, err
	}
	defer fh.Close()
	truth, err := ReadTruth(fh)
	if err != nil {
		return rep, 0, err
	}
	if rep.Errors, err = Compare(o.Records, func(i int) string { return reqs[i].ID }, truth); err != nil {
		return rep, 0, err
	}
	if rep.Matched == 0 { // nothing to measure: say why instead of a row of NaN
		first := "(no record)"
		if len(o.Records) > 0 {
			first = o.Records[0].Error
		}
		return rep, 0, fmt.Errorf("no request succeeded (the first failed with: %s)", first)
	}
	m := &o.SelfCheck
	rep.Failed = requests - rep.Matched
	if m.Events > 0 && m.CPU > 0 {
		rep.CPUPerChunkUs = float64(m.CPU) / float64(time.Microsecond) / float64(m.Events)
	}
	rep.SchedP99Ms, rep.DispatchLagP99Ms = durMs(m.SchedLatencyP99), durMs(m.DispatchLagP99)
	rep.EventsPerSecond, rep.Verdict = m.EventsPerSecond(), string(o.Verdict.Verdict)
	rep.WallSeconds = m.Wall.Seconds()
	return rep, m.Cores, nil
}

// simProcess is a simulator running as its own process (its own Go
// runtime, as a real server would have).
type simProcess struct {
	url  string
	cmd  *exec.Cmd
	done bool
}

// startSimProcess runs "bin sim --mode fixed" on a free loopback port and
// reads its URL from the line it prints when it serves.
func startSimProcess(ctx context.Context, bin, truthPath string, ttft, itl time.Duration) (*simProcess, error) {
	cmd := exec.CommandContext(ctx, bin, "sim", "--mode", "fixed", "--ttft", ttft.String(), "--itl", itl.String(),
		"--listen", "127.0.0.1:0", "--truth-log", truthPath)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the simulator (%s sim): %w", bin, err)
	}
	p := &simProcess{cmd: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	_, url, found := strings.Cut(strings.TrimSpace(line), " on ")
	if err != nil || !found || !strings.HasPrefix(url, "http://") {
		_ = p.stop()
		return nil, fmt.Errorf("the simulator (%s sim) did not say where it serves: %q %v", bin, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	p.url = url
	return p, nil
}

// stop interrupts the simulator and waits for it: its truth log is then
// complete.
func (p *simProcess) stop() error {
	if p.done {
		return nil
	}
	p.done = true
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("the simulator exited with %w", err)
	}
	return nil
}
