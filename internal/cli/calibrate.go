package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/host"
)

// newCalibrateCmd builds "llmbench calibrate"; the calibration lives in
// package calibrate.
func newCalibrateCmd(env *Env) *cobra.Command {
	var (
		c            calibrate.Config
		save, simBin string
	)
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
			rep, err := calibrate.Process(simBin, &c)
			if err != nil {
				return err
			}
			return runCalibrate(cmd.Context(), env, &c, save, rep)
		},
	}
	fs := cmd.Flags()
	fs.IntSliceVar(&c.Streams, "streams", []int{1, 100, 500, 1000}, "concurrent streams per load (comma list)")
	fs.DurationVar(&c.TTFT, "ttft", 50*time.Millisecond, "simulator time to first token")
	fs.DurationVar(&c.ITL, "itl", 10*time.Millisecond, "simulator inter-token latency")
	fs.IntVar(&c.Tokens, "tokens", 10, "output tokens per request")
	fs.IntVar(&c.Rule.Requests, "requests", calibrate.MinHeadlineRequests, "at least this many requests per repetition of each load (the headline needs 100)")
	fs.DurationVar(&c.Rule.MinTime, "min-time", time.Second, "at least this much nominal request time (TTFT + token gaps, per wave) per repetition of each load")
	fs.IntVar(&c.Repeat, "repeat", 5, "repetitions of each load, each against a fresh simulator (the headline needs 2)")
	fs.StringVar(&save, "save", "", "write the calibration as JSON to this file")
	fs.StringVar(&simBin, "sim-bin", "", "llmbench binary to run the simulator with (default: this one)")
	fs.BoolVar(&c.Preconnect, "preconnect", false, "open the connections before each repetition, as run --preconnect")
	return cmd
}

// runCalibrate checks c and the host's file limit for every load, runs
// the calibration with runRep (calibrate.Process; tests substitute their
// own) and saves it (calibrate.RunAndSave).
func runCalibrate(ctx context.Context, env *Env, c *calibrate.Config, save string, runRep calibrate.RepetitionFunc) error {
	perRep, err := c.Check(bench.MaxNumPrompts)
	var fl *host.FileLimitError
	switch {
	case errors.As(err, &fl): // the host as it is cannot run it
		return &ExitError{Code: 1, Msg: err.Error()}
	case err != nil:
		return &UsageError{Err: err}
	}
	return calibrate.RunAndSave(ctx, c, perRep, runRep, env.Stdout, save)
}
