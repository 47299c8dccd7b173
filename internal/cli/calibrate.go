package cli

import (
	"bufio"
	"context"
	"encoding/json"
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

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/load"
)

// calibrateFlags are "llmbench calibrate"'s settings.
type calibrateFlags struct {
	streams    []int
	ttft, itl  time.Duration
	tokens     int
	save       string
	simBin     string
	preconnect bool
}

// calibrationResult is what --save writes.
type calibrationResult struct {
	TTFTMs     float64          `json:"sim_ttft_ms"`
	ITLMs      float64          `json:"sim_itl_ms"`
	Tokens     int              `json:"tokens"`
	Preconnect bool             `json:"preconnect"`
	Cores      int              `json:"cores"`
	Steps      []calibrate.Step `json:"steps"`
	Within1Ms  int              `json:"max_streams_within_1ms_ttft_error"`
	Within5Ms  int              `json:"max_streams_within_5ms_ttft_error"`
}

func newCalibrateCmd(env *Env) *cobra.Command {
	f := &calibrateFlags{}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure this host's own measurement error against the simulator's ground truth",
		Long: `calibrate starts the simulator in fixed mode (every request gets --ttft,
then --tokens tokens --itl apart) as a separate process with its ground
truth log, runs llmbench's own run path (the same plan, dispatcher, client
and self-check as "llmbench run") with all requests sent at once at each
--streams load, and matches every request to what the server did. Per
step it prints the client's mean and p99 TTFT error (client TTFT − the
server's arrival → first token write), mean and p99 ITL error, client CPU
per chunk, Go scheduler latency p99, dispatch lag p99, events/s and the
self-check verdict; then the largest load this host measures within 1 ms
and 5 ms of TTFT error. See docs/fidelity.md.`,
		Args: argsBetween(0, 0, "takes flags only"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runCalibrate(cmd.Context(), env, f) },
	}
	fs := cmd.Flags()
	fs.IntSliceVar(&f.streams, "streams", []int{1, 100, 500, 1000}, "concurrent streams per step (comma list)")
	fs.DurationVar(&f.ttft, "ttft", 50*time.Millisecond, "simulator time to first token")
	fs.DurationVar(&f.itl, "itl", 10*time.Millisecond, "simulator inter-token latency")
	fs.IntVar(&f.tokens, "tokens", 100, "output tokens per request")
	fs.StringVar(&f.save, "save", "", "write the calibration as JSON to this file")
	fs.StringVar(&f.simBin, "sim-bin", "", "llmbench binary to run the simulator with (default: this one)")
	fs.BoolVar(&f.preconnect, "preconnect", false, "open the connections before each step, as run --preconnect")
	return cmd
}

func runCalibrate(ctx context.Context, env *Env, f *calibrateFlags) error {
	if len(f.streams) == 0 || f.tokens < 1 || f.ttft < 0 || f.itl < 0 {
		return usageErrorf("--streams needs at least one load, --tokens at least 1, --ttft and --itl must not be negative")
	}
	for _, n := range f.streams {
		if n < 1 || n > maxNumPrompts {
			return usageErrorf("--streams %d: want 1..%d", n, maxNumPrompts)
		}
		if err := ensureFileLimit(n); err != nil { // the simulator is another process, with its own
			return err
		}
	}
	bin := f.simBin
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("calibrate: finding this binary to start the simulator: %w", err)
		}
	}
	res := calibrationResult{TTFTMs: durMs(f.ttft), ITLMs: durMs(f.itl), Tokens: f.tokens, Preconnect: f.preconnect}
	out := env.Stdout
	fmt.Fprintf(out, "Simulator: fixed, TTFT %v, ITL %v, %d tokens; all requests at once; errors = client − server (ms)\n", f.ttft, f.itl, f.tokens)
	fmt.Fprintf(out, "%8s %6s %10s %10s %10s %10s %12s %10s %10s %10s  %s\n", "streams", "failed", "ttft-mean", "ttft-p99", "itl-mean", "itl-p99",
		"cpu/chunk-us", "sched-p99", "lag-p99", "events/s", "verdict")
	for i, n := range f.streams {
		st, cores, err := calibrateStep(ctx, bin, f, n, i)
		if err != nil {
			return fmt.Errorf("calibrate: %d streams: %w", n, err)
		}
		res.Cores = cores
		res.Steps = append(res.Steps, st)
		fmt.Fprintf(out, "%8d %6d %10.3f %10.3f %10.3f %10.3f %12.2f %10.3f %10.3f %10.0f  %s\n", st.Streams, st.Failed, st.TTFTMeanMs, st.TTFTP99Ms,
			st.ITLMeanMs, st.ITLP99Ms, st.CPUPerChunkUs, st.SchedP99Ms, st.DispatchLagP99Ms, st.EventsPerSecond, st.Verdict)
	}
	res.Within1Ms, res.Within5Ms = calibrate.Within(res.Steps, 1), calibrate.Within(res.Steps, 5)
	fmt.Fprintf(out, "Largest load measured within 1 ms of mean TTFT error: %s; within 5 ms: %s (of the loads tried, on %d cores)\n",
		streamsOrNone(res.Within1Ms), streamsOrNone(res.Within5Ms), res.Cores)
	if f.save == "" {
		return nil
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.save, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("calibrate: --save: %w", err)
	}
	fmt.Fprintf(out, "Calibration saved to %s\n", f.save)
	return nil
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func streamsOrNone(n int) string {
	switch n {
	case 0:
		return "none"
	case 1:
		return "1 stream"
	}
	return strconv.Itoa(n) + " streams"
}

// calibrateStep runs one load against a fresh simulator process and
// compares the records with its truth log.
func calibrateStep(ctx context.Context, bin string, f *calibrateFlags, n, step int) (calibrate.Step, int, error) {
	st := calibrate.Step{Streams: n}
	dir, err := os.MkdirTemp("", "llmbench-calibrate")
	if err != nil {
		return st, 0, err
	}
	defer os.RemoveAll(dir)
	truthPath := filepath.Join(dir, "truth.jsonl")
	srv, err := startSimProcess(ctx, bin, truthPath, f.ttft, f.itl)
	if err != nil {
		return st, 0, err
	}
	defer srv.stop()
	client, err := openai.New(openai.Config{URL: srv.url + "/v1/completions", MaxConcurrency: n})
	if err != nil {
		return st, 0, err
	}
	defer client.Close()
	prefix := fmt.Sprintf("calibrate-%d-", step)
	reqs := make([]backend.Request, n)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, ID: prefix + strconv.Itoa(i), Model: "llmbench-sim",
			Prompt: "measure the client against the server", PromptLen: 7, MaxTokens: f.tokens, IgnoreEOS: true}
	}
	plan := &bench.Plan{Kind: bench.OpenAICompletions, Backend: client, Requests: reqs, IDPrefix: prefix,
		Load:           bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: n},
		RequestTimeout: 10 * time.Minute, Preconnect: f.preconnect}
	o, err := bench.Execute(ctx, plan, bench.Hooks{})
	if err != nil {
		return st, 0, err
	}
	if err := srv.stop(); err != nil {
		return st, 0, err
	}
	fh, err := os.Open(truthPath)
	if err != nil {
		return st, 0, err
	}
	defer fh.Close()
	truth, err := calibrate.ReadTruth(fh)
	if err != nil {
		return st, 0, err
	}
	if st.Errors, err = calibrate.Compare(o.Records, func(i int) string { return reqs[i].ID }, truth); err != nil {
		return st, 0, err
	}
	m := &o.SelfCheck
	st.Failed = n - st.Matched
	if m.Events > 0 && m.CPU > 0 {
		st.CPUPerChunkUs = float64(m.CPU) / float64(time.Microsecond) / float64(m.Events)
	}
	st.SchedP99Ms, st.DispatchLagP99Ms = durMs(m.SchedLatencyP99), durMs(m.DispatchLagP99)
	st.EventsPerSecond, st.Verdict = m.EventsPerSecond(), string(o.Verdict.Verdict)
	return st, m.Cores, nil
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
