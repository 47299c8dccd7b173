package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/calibrate"
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

// newCalibrateCmd builds "llmbench calibrate"; the calibration lives in
// package calibrate.
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
			return runCalibrate(cmd.Context(), env, f, calibrate.Process(bin, f.config()))
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

// config is the calibration the flags ask for.
func (f *calibrateFlags) config() *calibrate.Config {
	return &calibrate.Config{Streams: f.streams, TTFT: f.ttft, ITL: f.itl, Tokens: f.tokens,
		Rule: calibrate.Rule{Requests: f.requests, MinTime: f.minTime}, Repeat: f.repeat, Preconnect: f.preconnect}
}

// runCalibrate checks the flags and the host's file limit for every
// load, runs the calibration with runRep (calibrate.Process; tests
// substitute their own) and saves it.
func runCalibrate(ctx context.Context, env *Env, f *calibrateFlags, runRep calibrate.RepetitionFunc) error {
	if len(f.streams) == 0 || f.ttft < 0 || f.itl < 0 {
		return usageErrorf("--streams needs at least one load, --ttft and --itl must not be negative")
	}
	if f.tokens < 2 { // one token has no inter-token gap: the ITL error would have no figure
		return usageErrorf("--tokens %d: want at least 2 (the ITL error needs a gap between two tokens)", f.tokens)
	}
	if f.requests < 1 || f.repeat < 1 || f.minTime < 0 {
		return usageErrorf("--requests and --repeat need at least 1, --min-time must not be negative")
	}
	c := f.config()
	perRep := make([]int, len(f.streams))
	for i, n := range f.streams {
		if n < 1 || n > maxNumPrompts {
			return usageErrorf("--streams %d: want 1..%d", n, maxNumPrompts)
		}
		if err := ensureFileLimit(n); err != nil { // the simulator is another process, with its own
			return err
		}
		perRep[i] = c.Rule.RequestsPerRepetition(n, c.Nominal())
		if perRep[i] > maxNumPrompts {
			return usageErrorf("--streams %d with --min-time %v at %v per request needs %d requests per repetition, more than %d; lower --min-time or raise --ttft/--itl",
				n, f.minTime, c.Nominal(), perRep[i], maxNumPrompts)
		}
	}
	res, err := calibrate.Run(ctx, c, perRep, runRep, env.Stdout)
	if err != nil || f.save == "" {
		return err
	}
	if err := atomicfile.Write(f.save, 0o644, func(w io.Writer) error { return calibrate.WriteJSON(w, res) }); err != nil {
		return fmt.Errorf("calibrate: --save: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Calibration saved to %s\n", f.save)
	return nil
}
