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

	"github.com/llmbench/llmbench/internal/atomicfile"
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
	requests   int
	minTime    time.Duration
	repeat     int
	save       string
	simBin     string
	preconnect bool
}

// calibrationRule is the saved form of the rule each row ran under.
type calibrationRule struct {
	MinRequests int     `json:"min_requests_per_repetition"`
	MinSeconds  float64 `json:"min_nominal_seconds_per_repetition"`
	Repetitions int     `json:"repetitions"`
}

// calibrationResult is what --save writes.
type calibrationResult struct {
	TTFTMs     float64            `json:"sim_ttft_ms"`
	ITLMs      float64            `json:"sim_itl_ms"`
	Tokens     int                `json:"tokens"`
	Preconnect bool               `json:"preconnect"`
	Cores      int                `json:"cores"`
	Rule       calibrationRule    `json:"rule"`
	Rows       []calibrate.Row    `json:"rows"`
	Within1Ms  calibrate.Headline `json:"within_1ms_ttft_error"`
	Within5Ms  calibrate.Headline `json:"within_5ms_ttft_error"`
	// TimedSeconds sums the repetitions' timed runs.
	TimedSeconds float64 `json:"timed_seconds"`
}

// repetitionFunc runs one repetition: requests requests holding streams
// in flight, tagged row and rep so that request ids are unique; it
// returns the figures and the cores the client used. Tests substitute
// one that starts nothing.
type repetitionFunc func(ctx context.Context, streams, requests, row, rep int) (calibrate.Repetition, int, error)

func newCalibrateCmd(env *Env) *cobra.Command {
	f := &calibrateFlags{}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure this host's own measurement error against the simulator's ground truth",
		Long: `calibrate starts the simulator in fixed mode (every request gets --ttft,
then --tokens tokens --itl apart) as a separate process with its ground
truth log, runs llmbench's own run path (the same plan, dispatcher, client
and self-check as "llmbench run") holding each --streams load in flight
(the first wave sent at once, each request's end sending the next), and
matches every request to what the server did. Each load runs --repeat
times, each time against a fresh simulator, for at least --requests
requests and at least --min-time of nominal request time (TTFT plus the
token gaps). Per load it prints the least and greatest over the
repetitions of the client's mean and p99 TTFT error (client TTFT − the
server's arrival → first token write) and mean and p99 ITL error, and the
worst repetition's client CPU per chunk, Go scheduler latency p99,
dispatch lag p99 and self-check verdict; then the largest load whose
every repetition was within 1 ms and 5 ms of mean TTFT error, or why
that is not resolved (a spread across the bound, too few requests or
repetitions). See docs/fidelity.md.`,
		Args: argsBetween(0, 0, "takes flags only"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			bin := f.simBin
			if bin == "" {
				var err error
				if bin, err = os.Executable(); err != nil {
					return fmt.Errorf("calibrate: finding this binary to start the simulator: %w", err)
				}
			}
			rep := func(ctx context.Context, streams, requests, row, rep int) (calibrate.Repetition, int, error) {
				return calibrateRepetition(ctx, bin, f, streams, requests, fmt.Sprintf("calibrate-%d-%d-", row, rep))
			}
			return runCalibrate(cmd.Context(), env, f, rep)
		},
	}
	fs := cmd.Flags()
	fs.IntSliceVar(&f.streams, "streams", []int{1, 100, 500, 1000}, "concurrent streams per load (comma list)")
	fs.DurationVar(&f.ttft, "ttft", 50*time.Millisecond, "simulator time to first token")
	fs.DurationVar(&f.itl, "itl", 10*time.Millisecond, "simulator inter-token latency")
	fs.IntVar(&f.tokens, "tokens", 10, "output tokens per request")
	fs.IntVar(&f.requests, "requests", calibrate.MinHeadlineRequests, "at least this many requests per repetition of each load (the headline needs 100)")
	fs.DurationVar(&f.minTime, "min-time", time.Second, "at least this much nominal request time (TTFT + token gaps, per wave) per repetition of each load")
	fs.IntVar(&f.repeat, "repeat", 5, "repetitions of each load, each against a fresh simulator (the headline needs 2)")
	fs.StringVar(&f.save, "save", "", "write the calibration as JSON to this file")
	fs.StringVar(&f.simBin, "sim-bin", "", "llmbench binary to run the simulator with (default: this one)")
	fs.BoolVar(&f.preconnect, "preconnect", false, "open the connections before each repetition, as run --preconnect")
	return cmd
}

// nominalRequest is how long one fixed-mode request takes on the
// simulator's clock: TTFT, then a gap before each token after the first.
func (f *calibrateFlags) nominalRequest() time.Duration {
	return f.ttft + time.Duration(f.tokens-1)*f.itl
}

func runCalibrate(ctx context.Context, env *Env, f *calibrateFlags, runRep repetitionFunc) error {
	if len(f.streams) == 0 || f.ttft < 0 || f.itl < 0 {
		return usageErrorf("--streams needs at least one load, --ttft and --itl must not be negative")
	}
	if f.tokens < 2 { // one token has no inter-token gap: the ITL error would have no figure
		return usageErrorf("--tokens %d: want at least 2 (the ITL error needs a gap between two tokens)", f.tokens)
	}
	if f.requests < 1 || f.repeat < 1 || f.minTime < 0 {
		return usageErrorf("--requests and --repeat need at least 1, --min-time must not be negative")
	}
	rule := calibrate.Rule{Requests: f.requests, MinTime: f.minTime}
	nominal := f.nominalRequest()
	perRep := make([]int, len(f.streams))
	var estimate time.Duration
	for i, n := range f.streams {
		if n < 1 || n > maxNumPrompts {
			return usageErrorf("--streams %d: want 1..%d", n, maxNumPrompts)
		}
		if err := ensureFileLimit(n); err != nil { // the simulator is another process, with its own
			return err
		}
		perRep[i] = rule.RequestsPerRepetition(n, nominal)
		if perRep[i] > maxNumPrompts {
			return usageErrorf("--streams %d with --min-time %v at %v per request needs %d requests per repetition, more than %d; lower --min-time or raise --ttft/--itl",
				n, f.minTime, nominal, perRep[i], maxNumPrompts)
		}
		estimate += time.Duration(f.repeat*perRep[i]/n) * nominal
	}
	res := calibrationResult{TTFTMs: durMs(f.ttft), ITLMs: durMs(f.itl), Tokens: f.tokens, Preconnect: f.preconnect,
		Rule: calibrationRule{MinRequests: f.requests, MinSeconds: f.minTime.Seconds(), Repetitions: f.repeat}}
	out := env.Stdout
	fmt.Fprintf(out, "Simulator: fixed, TTFT %v, ITL %v, %d tokens. Each load %d times, each against a fresh simulator, held for at least %d requests and %v of nominal request time (%.0f s of requests in all, at least)\n",
		f.ttft, f.itl, f.tokens, f.repeat, f.requests, f.minTime, estimate.Seconds())
	fmt.Fprintf(out, "Errors = client − server (ms), least to greatest over the repetitions; cpu/chunk, sched-p99, lag-p99 and verdict: the worst repetition\n")
	fmt.Fprintf(out, "%8s %9s %6s %17s %17s %17s %17s %12s %10s %10s %10s  %s\n", "streams", "requests", "failed", "ttft-mean", "ttft-p99", "itl-mean", "itl-p99",
		"cpu/chunk-us", "sched-p99", "lag-p99", "events/s", "verdict")
	for i, n := range f.streams {
		reps := make([]calibrate.Repetition, 0, f.repeat)
		for r := range f.repeat {
			rep, cores, err := runRep(ctx, n, perRep[i], i, r)
			if err != nil {
				if ctx.Err() != nil { // Ctrl-C: what cancelling did to the simulator is noise
					return fmt.Errorf("calibrate: interrupted at %s, repetition %d of %d", streamsOrNone(n), r+1, f.repeat)
				}
				return fmt.Errorf("calibrate: %s, repetition %d: %w", streamsOrNone(n), r+1, err)
			}
			res.Cores = cores
			res.TimedSeconds += rep.WallSeconds
			reps = append(reps, rep)
		}
		row := calibrate.NewRow(n, reps)
		res.Rows = append(res.Rows, row)
		var cpu, sched, lag, events float64
		for _, r := range reps {
			cpu, sched, lag = max(cpu, r.CPUPerChunkUs), max(sched, r.SchedP99Ms), max(lag, r.DispatchLagP99Ms)
			events += r.EventsPerSecond / float64(len(reps))
		}
		fmt.Fprintf(out, "%8d %9s %6d %17s %17s %17s %17s %12.2f %10.3f %10.3f %10.0f  %s\n", n, fmt.Sprintf("%dx%d", f.repeat, perRep[i]), row.Failed,
			spread(row.TTFTMeanMs), spread(row.TTFTP99Ms), spread(row.ITLMeanMs), spread(row.ITLP99Ms), cpu, sched, lag, events, row.Verdict)
	}
	res.Within1Ms, res.Within5Ms = calibrate.HeadlineWithin(res.Rows, 1), calibrate.HeadlineWithin(res.Rows, 5)
	for _, h := range []struct {
		ms int
		h  calibrate.Headline
	}{{1, res.Within1Ms}, {5, res.Within5Ms}} {
		fmt.Fprintf(out, "Largest load measured within %d ms of mean TTFT error in every repetition: %s\n", h.ms, headline(h.h))
	}
	fmt.Fprintf(out, "(of the loads tried, on %d cores; the timed runs took %.1f s)\n", res.Cores, res.TimedSeconds)
	if f.save == "" {
		return nil
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("calibrate: --save: %w", err)
	}
	if err := atomicfile.Write(f.save, 0o644, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("calibrate: --save: %w", err)
	}
	fmt.Fprintf(out, "Calibration saved to %s\n", f.save)
	return nil
}

// spread prints a figure's least and greatest over the repetitions.
func spread(r calibrate.Range) string {
	return fmt.Sprintf("%.3f..%.3f", r.Min, r.Max)
}

// headline says the answer, or that there is none yet and why.
func headline(h calibrate.Headline) string {
	if h.Resolved {
		return streamsOrNone(h.Streams)
	}
	if h.Streams == 0 {
		return "not resolved: " + h.Reason
	}
	return fmt.Sprintf("not resolved, at least %s: %s", streamsOrNone(h.Streams), h.Reason)
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

// calibrateRepetition runs one repetition against a fresh simulator
// process and compares the records with its truth log. Rate +Inf under a
// cap of streams is a closed loop: the first streams requests go at once
// (each dialling its connection unless --preconnect), and each request's
// end sends the next on its kept-alive connection, until the last wave.
func calibrateRepetition(ctx context.Context, bin string, f *calibrateFlags, streams, requests int, prefix string) (calibrate.Repetition, int, error) {
	rep := calibrate.Repetition{Requests: requests}
	dir, err := os.MkdirTemp("", "llmbench-calibrate")
	if err != nil {
		return rep, 0, err
	}
	defer os.RemoveAll(dir)
	truthPath := filepath.Join(dir, "truth.jsonl")
	srv, err := startSimProcess(ctx, bin, truthPath, f.ttft, f.itl)
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
			Prompt: "measure the client against the server", PromptLen: 7, MaxTokens: f.tokens, IgnoreEOS: true}
	}
	plan := &bench.Plan{Kind: bench.OpenAICompletions, Backend: client, Requests: reqs, IDPrefix: prefix,
		Load:           bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: streams},
		RequestTimeout: 10 * time.Minute, Preconnect: f.preconnect}
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
	truth, err := calibrate.ReadTruth(fh)
	if err != nil {
		return rep, 0, err
	}
	if rep.Errors, err = calibrate.Compare(o.Records, func(i int) string { return reqs[i].ID }, truth); err != nil {
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
