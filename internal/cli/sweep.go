package cli

import (
	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/sweep"
)

// sweepOptions is "llmbench sweep": run's options plus the ladder.
type sweepOptions struct {
	runOptions
	// ladders, sla and thinkTime are the texts of the ladder flags, --sla
	// and --think-time (checkSweep parses them into sc).
	ladders        sweep.Ladders
	sla, thinkTime string
	// sc holds sweep's other flags and, once checked, the sweep's whole
	// configuration (checkSweep, configure).
	sc sweep.Config
}

func newSweepCmd(env *Env) *cobra.Command {
	cmd, _ := sweepCommand(env)
	return cmd
}

// sweepCommand is newSweepCmd with the options its flags are bound to.
func sweepCommand(env *Env) (*cobra.Command, *sweepOptions) {
	o := &sweepOptions{}
	cmd := &cobra.Command{
		Use:   "sweep (--concurrency LIST | --request-rates LIST | --users LIST) [flags]",
		Short: "Find the saturation point and the largest load that meets an SLA",
		Long: `Run one benchmark step per load level and analyse the ladder: where added
load stops buying throughput (the saturation point), the largest load that
meets --sla and which term binds, with a verdict in plain words
(docs/capacity.md). Every run flag works here; each step's full result is
saved beside the sweep file (sweep-*.json, and a CSV of the rows).

Loads: --concurrency keeps exactly c requests in flight (closed loop),
--request-rates sends open loop at each rate, --users runs closed-loop users
with --think-time between requests. A step ends after --prompts-per-step
requests or --step-duration, after --step-warmup warm-up requests. A
closed-loop ladder keeps its own concurrency: a config's max_concurrency
does not apply, and --max-concurrency beside it is refused.

With --sla, a step passes only when at most --max-error-rate (0.01) of its
requests failed; a step where nothing completed ends the sweep with exit 1
("the server stopped answering"); --require-load N exits 1 when the
largest load under the SLA is below N. The verdict gives the autoscaler
targets at 80 % of that load (Kubernetes HPA requests in flight per pod,
SageMaker InvocationsPerInstance per minute). config.yaml, --config and
--course are read as by run.

Distributed (docs/distributed.md): with --worker-count N, --worker-index I,
--start-at T and --step-duration D, each worker runs its share of every
step (the users or concurrency split I modulo N, the requests of a rate
split by index modulo N), step k starting at T + k x (D + --step-gap);
each step keeps its per-request records, and llmbench merge combines the
workers' sweeps step by step. --refine and --stop-when-saturated are
refused there (they need the merged data).`,
		Example: `  # the capacity question on a vLLM server
  llmbench sweep --base-url http://127.0.0.1:8000 --model M \
    --concurrency 1,2,4,8,16,32,64,128 --refine 4 \
    --sla 'p99_ttft_ms<500,p99_itl_ms<30'

  # chat users who think 1-3 s between turns, 60 s per step
  llmbench sweep --backend openai-chat --users 10,50,100,200 \
    --think-time 1s-3s --step-duration 60s

  # worker 0 of 4 of a distributed sweep; merge the 4 sweeps afterwards
  llmbench sweep --concurrency 8,16,32 --step-duration 60s --step-gap 30s \
    --worker-index 0 --worker-count 4 --start-at 2026-12-01T15:00:00Z
  llmbench merge results/ -o results/sweep-merged.json`,
		Args: argsBetween(0, 0, "takes flags only"),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The same configuration layers as run (config.yaml, --config,
			// --course), so that run and sweep in one folder measure one
			// workload.
			o.sweepLoop = o.ladders.Loop()
			done, err := o.resolveConfig(cmd, args, env)
			if err != nil || done {
				return err
			}
			return o.sweep(cmd.Context(), env, cmd)
		},
	}
	o.sweepMode = true
	// A file's keys are run's (one file for both commands); run's closed
	// loop and time bound are sweep's ladder and --step-duration here.
	o.cfg.schema = newRunCmd(env).Flags()
	o.cfg.runOnly = map[string]bool{"users": true, "duration": true, "warmup-duration": true, "multi-turn": true, "turn-think-time": true}
	fs := cmd.Flags()
	bindRunFlags(fs, &o.f)
	bindMetricsFlags(fs, &o.m)
	o.sm = bindSageMakerFlags(fs)
	c := &o.sc
	fs.StringVar(&o.ladders.Concurrency, "concurrency", "", "closed-loop ladder: requests kept in flight per step, e.g. 1,2,4,8,16,32,64")
	fs.StringVar(&o.ladders.Rates, "request-rates", "", "open-loop ladder: request rates (req/s) per step, e.g. 1,2,4,8")
	fs.StringVar(&o.ladders.Users, "users", "", "closed-loop users per step, each thinking --think-time between requests, e.g. 10,50,100")
	fs.StringVar(&o.thinkTime, "think-time", "0", "users' pause after each response: fixed (2s) or uniform range (1s-3s)")
	fs.Float64Var(&c.SpawnRate, "spawn-rate", 0, "users started per second at the start of a step (0 = all at once)")
	fs.DurationVar(&c.StepDuration, "step-duration", 0, "bound each step by time (e.g. 60s); 0 = by --prompts-per-step only")
	fs.IntVar(&c.PromptsPerStep, "prompts-per-step", 0, "requests per step (0 = 8 x load, at least 32, or rate x 20 s; unbounded under --step-duration)")
	fs.IntVar(&c.StepWarmup, "step-warmup", -1, "warm-up requests before each step, excluded from its metrics (-1 = the load, at most 64)")
	bindRepeatFlags(fs, &o.f.repeat, "repeat each step K times, or auto: until each deciding figure's 95% t interval is within --ci-width of its mean (at least 3, at most --max-runs runs; deciding: the --sla terms judged on an interval, else output token throughput, mean TTFT and mean TPOT); rows report the mean, the spread and run_stats, and with --sla each step is judged on the t interval over its runs")
	fs.StringVar(&o.sla, "sla", "", "service-level terms, e.g. 'p99_ttft_ms<500,p99_itl_ms<30,error_rate<0.01' (any result key, < or <=)")
	fs.BoolVar(&c.StopWhenSaturated, "stop-when-saturated", false, "end the ladder once the knee is confirmed and the SLA failed")
	fs.Float64Var(&c.RequireLoad, "require-load", 0, "with --sla: exit 1 when the largest load under the SLA is below this (a CI gate: \"capacity fell below N users\")")
	fs.IntVar(&c.Refine, "refine", 0, "after the ladder, run unresolved steps again twice as long, then bisect between the last passing and first failing load, at most this many extra steps")
	fs.DurationVar(&c.StepGap, "step-gap", sweep.DefaultStepGap, "with --start-at: pause between steps on the clock schedule (step k starts at start-at + k x (step-duration + step-gap)); must cover the previous step's drain and the next step's warm-ups (ours)")
	bindWorkerFlags(fs, &o.w)
	bindConfigFlags(fs, &o.runOptions)
	fs.Lookup("max-error-rate").Usage = "with --sla: a step meets the SLA only when at most this fraction of its requests failed (default 0.01; requests the step's end canceled do not count)"
	return cmd, o
}

// checkSweep converts and checks sweep's own flags into o.sc and sets
// the figures every step must report (sweep.ResultFigures).
func (o *sweepOptions) checkSweep(cmd *cobra.Command) error {
	c, fs := &o.sc, cmd.Flags()
	if err := c.Parse(o.ladders, o.sla, o.thinkTime); err != nil {
		return &UsageError{Err: err}
	}
	if err := checkRepeat(fs, o.f.repeat); err != nil {
		return err
	}
	c.Repeat = o.f.repeat
	given := sweep.Given{ThinkTime: o.userSet(cmd, "think-time"), MaxConcurrency: o.userSet(cmd, "max-concurrency"), Cap: o.f.maxConcurrency.V,
		MaxErrorRate: o.f.maxErrorRate.Given, Rate: o.f.maxErrorRate.V}
	if err := c.Check(given); err != nil {
		return &UsageError{Err: err}
	}
	pm, mp := sweep.ResultFigures(c.SLA,
		flagset.Given(fs, "percentile-metrics", &o.f.percentileMetrics), flagset.Given(fs, "metric-percentiles", &o.f.metricPercentiles))
	o.f.swept = &figures{pm, mp}
	return nil
}
