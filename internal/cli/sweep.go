package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/load"
)

// sweepFlags are sweep's own settings; every run flag works too.
type sweepFlags struct {
	concurrency, rates, users string
	stepDuration              time.Duration
	promptsPerStep            int
	stepWarmup                int
	sla                       string
	stopWhenSaturated         bool
	refine                    int
	thinkTime                 string
	spawnRate                 float64
	// requireLoad, when > 0, is --require-load: exit 1 when the largest
	// load under the SLA is below it.
	requireLoad float64
	// stepGap is the pause between steps on the clock schedule
	// (sweep_worker.go): step k starts at --start-at + k × (stepDuration
	// + stepGap).
	stepGap time.Duration
}

// sweepOptions is "llmbench sweep": run's options plus the ladder.
type sweepOptions struct {
	runOptions
	s sweepFlags
	// gate is set when the SLA's error_rate term is --max-error-rate's
	// (withErrorGate), so the verdict states it.
	gate bool
}

func newSweepCmd(env *Env) *cobra.Command {
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
			switch {
			case o.s.concurrency != "":
				o.sweepLoop = "sweep --concurrency"
			case o.s.users != "":
				o.sweepLoop = "sweep --users"
			}
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
	s := &o.s
	fs.StringVar(&s.concurrency, "concurrency", "", "closed-loop ladder: requests kept in flight per step, e.g. 1,2,4,8,16,32,64")
	fs.StringVar(&s.rates, "request-rates", "", "open-loop ladder: request rates (req/s) per step, e.g. 1,2,4,8")
	fs.StringVar(&s.users, "users", "", "closed-loop users per step, each thinking --think-time between requests, e.g. 10,50,100")
	fs.StringVar(&s.thinkTime, "think-time", "0", "users' pause after each response: fixed (2s) or uniform range (1s-3s)")
	fs.Float64Var(&s.spawnRate, "spawn-rate", 0, "users started per second at the start of a step (0 = all at once)")
	fs.DurationVar(&s.stepDuration, "step-duration", 0, "bound each step by time (e.g. 60s); 0 = by --prompts-per-step only")
	fs.IntVar(&s.promptsPerStep, "prompts-per-step", 0, "requests per step (0 = 8 x load, at least 32, or rate x 20 s; unbounded under --step-duration)")
	fs.IntVar(&s.stepWarmup, "step-warmup", -1, "warm-up requests before each step, excluded from its metrics (-1 = the load, at most 64)")
	bindRepeatFlags(fs, &o.f.repeat, "repeat each step K times, or auto: until each deciding figure's 95% t interval is within --ci-width of its mean (at least 3, at most --max-runs runs; deciding: the --sla terms judged on an interval, else output token throughput, mean TTFT and mean TPOT); rows report the mean, the spread and run_stats, and with --sla each step is judged on the t interval over its runs")
	fs.StringVar(&s.sla, "sla", "", "service-level terms, e.g. 'p99_ttft_ms<500,p99_itl_ms<30,error_rate<0.01' (any result key, < or <=)")
	fs.BoolVar(&s.stopWhenSaturated, "stop-when-saturated", false, "end the ladder once the knee is confirmed and the SLA failed")
	fs.Float64Var(&s.requireLoad, "require-load", 0, "with --sla: exit 1 when the largest load under the SLA is below this (a CI gate: \"capacity fell below N users\")")
	fs.IntVar(&s.refine, "refine", 0, "after the ladder, run unresolved steps again twice as long, then bisect between the last passing and first failing load, at most this many extra steps")
	fs.DurationVar(&s.stepGap, "step-gap", defaultStepGap, "with --start-at: pause between steps on the clock schedule (step k starts at start-at + k x (step-duration + step-gap)); must cover the previous step's drain and the next step's warm-ups (ours)")
	bindWorkerFlags(fs, &o.w)
	bindConfigFlags(fs, &o.runOptions)
	fs.Lookup("max-error-rate").Usage = "with --sla: a step meets the SLA only when at most this fraction of its requests failed (default 0.01; requests the step's end canceled do not count)"
	return cmd
}

func flagOf(k capacity.Kind) string {
	switch k {
	case capacity.Concurrency:
		return "concurrency"
	case capacity.RequestRate:
		return "request-rates"
	}
	return "users"
}

// checkSweep validates sweep's own flags and sets the figures every step
// must report (e2el for Little's law, p99 for the SLA and the table).
func (o *sweepOptions) checkSweep(cmd *cobra.Command) (capacity.Kind, []float64, capacity.SLA, load.Think, error) {
	kind, loads, err := o.ladder()
	if err != nil {
		return "", nil, nil, load.Think{}, err
	}
	sla, err := capacity.ParseSLA(o.s.sla)
	if err != nil {
		return "", nil, nil, load.Think{}, &UsageError{Err: fmt.Errorf("--sla: %w", err)}
	}
	think, err := load.ParseThink(o.s.thinkTime)
	if err != nil {
		return "", nil, nil, load.Think{}, &UsageError{Err: fmt.Errorf("--think-time: %w", err)}
	}
	if err := o.f.repeat.check(cmd.Flags().Changed("ci-width") || cmd.Flags().Changed("max-runs")); err != nil {
		return "", nil, nil, load.Think{}, err
	}
	if o.s.refine < 0 || o.s.promptsPerStep < 0 || o.s.stepDuration < 0 || o.s.spawnRate < 0 {
		return "", nil, nil, load.Think{}, usageErrorf("--refine, --prompts-per-step, --step-duration and --spawn-rate must not be negative")
	}
	if kind != capacity.Users && o.userSet(cmd, "think-time") {
		return "", nil, nil, load.Think{}, usageErrorf("--think-time needs --users")
	}
	if kind != capacity.RequestRate {
		if o.userSet(cmd, "max-concurrency") {
			return "", nil, nil, load.Think{}, usageErrorf("sweep --%s keeps each step's load in flight: --max-concurrency %d would hold it at %d (leave it out)", flagOf(kind), o.f.maxConcurrency.v, o.f.maxConcurrency.v)
		}
	}
	if o.s.requireLoad < 0 || (o.s.requireLoad > 0 && len(sla) == 0) {
		return "", nil, nil, load.Think{}, usageErrorf("--require-load needs a positive load and --sla (it gates on the largest load under the SLA)")
	}
	sla = o.withErrorGate(sla)
	if !cmd.Flags().Changed("percentile-metrics") {
		o.f.percentileMetrics = "ttft,tpot,itl,e2el"
	}
	if !cmd.Flags().Changed("metric-percentiles") {
		o.f.metricPercentiles = "50,90,99"
	}
	for _, m := range sla.Metrics() {
		if !strings.Contains(","+o.f.percentileMetrics+",", ","+m+",") {
			o.f.percentileMetrics += "," + m
		}
	}
	for _, p := range append(sla.Percentiles(), 99) {
		o.f.metricPercentiles = addPercentile(o.f.metricPercentiles, p)
	}
	return kind, loads, sla, think, nil
}

// defaultSweepErrorRate is sweep's --max-error-rate when none is given:
// a step where more than 1 % of the requests failed does not meet the
// SLA, whatever its latencies (issue 29: a server killed mid-sweep gave
// "60339 failed, SLA pass").
const defaultSweepErrorRate = 0.01

// maxErrorRate is the failed share a step may have and still pass.
func (o *sweepOptions) maxErrorRate() float64 {
	if o.f.maxErrorRate.set {
		return o.f.maxErrorRate.v
	}
	return defaultSweepErrorRate
}

// withErrorGate adds error_rate<=--max-error-rate to an SLA that has no
// error_rate term of its own (none to a sweep without an SLA, which
// judges no step). Failures the step's own end canceled do not count
// (capacity.Row.ErrorRate).
func (o *sweepOptions) withErrorGate(sla capacity.SLA) capacity.SLA {
	if len(sla) == 0 {
		return sla
	}
	for _, t := range sla {
		if t.Key == "error_rate" {
			return sla
		}
	}
	o.gate = true
	return append(sla, capacity.Term{Key: "error_rate", Op: "<=", Value: o.maxErrorRate()})
}

// addPercentile appends p to a comma list of percentiles unless present.
func addPercentile(list string, p float64) string {
	want := strconv.FormatFloat(p, 'f', -1, 64)
	for _, x := range strings.Split(list, ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && v == p {
			return list
		}
	}
	return list + "," + want
}

// sweep runs the ladder, the refinement, and writes the analysis.
func (o *sweepOptions) sweep(ctx context.Context, env *Env, cmd *cobra.Command) error {
	kind, loads, sla, think, err := o.checkSweep(cmd)
	if err != nil {
		return err
	}
	if err := o.checkAll(cmd); err != nil {
		return err
	}
	if err := o.resolveWorker(cmd, env); err != nil { // distributed sweeps: sweep_worker.go
		return err
	}
	if err := o.checkSweepWorker(cmd, kind, loads); err != nil {
		return err
	}
	if o.w.info != nil && o.f.repeat.runs.auto {
		// Each worker sees only its share: when to stop is the merged
		// step's question.
		return usageErrorf("--runs auto needs the merged data: in worker mode give a fixed --runs K")
	}
	ui := &console{out: env.Stdout, errw: &lockedWriter{w: env.Stderr}, tty: env.Stderr}
	base, closeBE, err := o.plan(ctx, env, cmd, ui.errw)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	defer closeBE()
	if o.live, err = startLive(ctx, o.m, base, ui.out); err != nil {
		return err
	}
	defer o.live.Finish(context.WithoutCancel(ctx), ui.errw)
	d := &sweepDriver{o: o, ui: ui, base: base, kind: kind, sla: sla, think: think,
		date: time.Now().Format(bench.DateLayout), total: len(loads) * o.f.repeat.planned()}
	if err := d.prepareDir(); err != nil {
		return err
	}
	d.printSchedule(ui.errw)
	d.loads = loads
	d.printPlan(ui.errw, loads)
	d.ladder(ctx, loads)
	d.refine(ctx)
	return d.finish(ctx)
}

// sweepDriver runs the steps of one sweep and keeps their rows.
type sweepDriver struct {
	o     *sweepOptions
	ui    *console
	base  *bench.Plan
	kind  capacity.Kind
	sla   capacity.SLA
	think load.Think
	date  string
	dir   string // the step results' folder
	rows  []capacity.Row
	// windows are the rows' wall-clock windows, for CloudWatch.
	windows []stepWindow
	an      *capacity.Sweep
	loads   []float64 // the ladder
	n       int       // steps run
	total   int       // steps planned (grows with refinement)
	// stopped says why the sweep ended early ("" = it did not).
	stopped string
	// dead says how the server stopped answering ("" = it did not): the
	// sweep then ends with exit 1 and a verdict that says so.
	dead string
	// late are the steps that started late on the clock schedule
	// (lateNote), kept in the sweep file's notes.
	late []string
	// longer is how many times --refine lengthened the step at a load
	// (lengthen): its requests or duration are multiplied by 2^longer.
	longer map[float64]int
	// pending are the saved results of the current load's runs so far,
	// rewritten with llmbench.runs once the K-th has run (saveRuns).
	pending []savedRun
	// more is whether the last step's load wants another run (--runs).
	more bool
}

func (d *sweepDriver) label() string {
	if d.o.f.label != "" {
		return d.o.f.label
	}
	if d.base.Params.EndpointName != "" {
		return d.base.Params.EndpointName
	}
	return d.base.Params.ModelID
}

// sweepPath is the sweep file's path; its steps go to a folder of the
// same name. A worker's is named after the run and its index, so workers
// writing to one folder never collide and merge finds them.
func (d *sweepDriver) sweepPath() string {
	if w := d.o.w.info; w != nil {
		return filepath.Join(d.o.f.resultDir, fmt.Sprintf("sweep-%s-worker-%d.json", w.RunID, w.Index))
	}
	return filepath.Join(d.o.f.resultDir, capacity.FileName(d.label(), d.kind, d.date))
}

func (d *sweepDriver) prepareDir() error {
	d.dir = strings.TrimSuffix(d.sweepPath(), ".json")
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return usageErrorf("cannot create the sweep's folder: %v", err)
	}
	return nil
}

// ladder runs every load of the ladder, --runs times each.
func (d *sweepDriver) ladder(ctx context.Context, loads []float64) {
	for _, l := range loads {
		if !d.runLoad(ctx, l) {
			return
		}
		if d.o.s.stopWhenSaturated && d.an != nil && d.an.Stop() {
			d.stopped = "the knee is confirmed and the SLA failed (--stop-when-saturated)"
			return
		}
	}
}
