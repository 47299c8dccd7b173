package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/prepare"
	"github.com/llmbench/llmbench/internal/bench/step"
	"github.com/llmbench/llmbench/internal/host"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/selfcheck"
	"github.com/llmbench/llmbench/internal/sweep"
)

// runOptions is everything "llmbench run" (and "demo") needs.
type runOptions struct {
	f  runFlags
	sm *sageMakerFlags
	// cfg holds the project-configuration flags (--config, --course,
	// --print-command); see run_config.go.
	cfg configFlags
	// m are the live-metrics flags; live is the exporter they started.
	m    metricsFlags
	live *liveMetrics
	// w are the distributed-run flags (run_worker.go, docs/distributed.md).
	w workerFlags
	// sweepMode is set by sweep, whose --users, --think-time and
	// --spawn-rate are its own ladder's (bench.ClosedLoop is run's);
	// sweepLoop then names a closed-loop ladder ("sweep --concurrency";
	// "" for rates), for config.Resolve's closed-loop cap.
	sweepMode bool
	sweepLoop string
	// srv is the timed run's view of the server (--server-metrics,
	// run_metrics.go); nil when not asked for.
	srv *serverRun
	// resolved is the Spec the run was planned from (plan); what follows
	// the plan reads it, not the flags.
	resolved *bench.Spec
}

// newRunCmd builds "llmbench run".
func newRunCmd(env *Env) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags]",
		Short: "Benchmark one endpoint, like vllm bench serve",
		Long: `Benchmark one LLM serving endpoint and print vllm bench serve's result
table. Flags carry vllm bench serve's names, defaults and meanings
(underscore spellings such as --max_concurrency work too), so a command
line written for vLLM's tool runs here unchanged.

Backends: openai/vllm (/v1/completions), openai-chat (/v1/chat/completions),
sagemaker (SageMaker Runtime InvokeEndpointWithResponseStream).`,
		Example: `  # a vLLM server on this machine, 200 requests at 10 req/s
  llmbench run --model meta-llama/Llama-3.1-8B-Instruct \
    --request-rate 10 --num-prompts 200

  # chat endpoint, capped concurrency, SLOs and saved results
  llmbench run --backend openai-chat --base-url http://127.0.0.1:8000 \
    --max-concurrency 32 --goodput ttft:500 tpot:30 \
    --save-result --save-detailed

  # a SageMaker real-time endpoint
  llmbench run --backend sagemaker --endpoint-name my-endpoint \
    --region us-east-1 --num-prompts 100`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			done, err := o.resolveConfig(cmd, args, env)
			if err != nil || done {
				return err
			}
			return o.run(cmd.Context(), env, cmd)
		},
	}
	bindRunFlags(cmd.Flags(), &o.f)
	bindClosedLoopFlags(cmd.Flags(), &o.f)
	bindMetricsFlags(cmd.Flags(), &o.m)
	o.sm = bindSageMakerFlags(cmd.Flags())
	bindConfigFlags(cmd.Flags(), o)
	bindWorkerFlags(cmd.Flags(), &o.w)
	bindRepeatFlags(cmd.Flags(), &o.f.repeat, runsUsage) // run_repeat.go
	return cmd
}

// run executes the benchmark: check the flags, plan, execute, summarize,
// render, finish. Each phase is a short function; the step itself
// (internal/bench) knows nothing of flags or output.
func (o *runOptions) run(ctx context.Context, env *Env, cmd *cobra.Command) error {
	sp, err := o.checkAll(cmd)
	if err != nil {
		return err
	}
	if err := fileLimit(sp.InFlight()); err != nil {
		return err
	}
	// stderr is written from more than one goroutine during the run (the
	// progress bar, the interrupt note), so writes to it are serialised.
	ui := &console{out: env.Stdout, errw: &lockedWriter{w: env.Stderr}, tty: env.Stderr}
	if err := o.resolveWorker(cmd, env); err != nil { // distributed runs: run_worker.go
		return err
	}
	plan, closeBE, err := o.plan(ctx, env, cmd, ui.errw)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	defer closeBE()
	if plan, err = o.w.r.Share(plan, ui.errw); err != nil { // distributed runs
		return &UsageError{Err: err}
	}
	if o.live, err = promsink.Run(ctx, o.m, plan, ui.out); err != nil {
		return &UsageError{Err: err}
	}
	defer o.live.Finish(context.WithoutCancel(ctx), ui.errw)
	o.live.StartPhase("main", plan)
	o.printBanner(ui.out)
	r := &runsOf{o: o, ui: ui}
	if o.f.repeat.Planned() > 1 {
		return o.runRepeated(ctx, plan, r) // --runs: run_repeat.go
	}
	one, err := r.once(ctx, plan, 0)
	if err != nil {
		return err
	}
	if err := o.finish(ctx, ui, plan, one, one.rec, nil); err != nil {
		return err
	}
	if err := one.rec.Failed(); err != nil {
		return err
	}
	return o.exitPolicy(ctx, plan, one.outcome, one.sum.Metrics)
}

// fileLimit refuses streams this host cannot hold open
// (host.EnsureFileLimit) with exit code 1: the run cannot be made here as
// the host is, and must not start only to lose requests to "too many open
// files" half-way.
func fileLimit(streams int) error {
	if err := host.EnsureFileLimit(streams); err != nil {
		return &ExitError{Code: 1, Msg: err.Error()}
	}
	return nil
}

// console is where a run writes: the table on out, notes on errw; tty is
// the writer whose terminal-ness decides whether a progress bar is drawn.
type console struct {
	out, errw io.Writer
	tty       io.Writer
}

// interruptedOr turns a failure caused by Ctrl-C before the timed run
// (say, while prompts were being aligned with the server's /tokenize)
// into the documented exit code 130; any other error is returned as is.
func interruptedOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &ExitError{Code: 130, Msg: "interrupted before the benchmark started; nothing was measured"}
	}
	return err
}

// checkAll runs every check that needs no network and returns the Spec
// they passed (env-free: no API key).
func (o *runOptions) checkAll(cmd *cobra.Command) (*bench.Spec, error) {
	sp, err := o.spec(cmd, nil)
	if err != nil {
		return nil, err
	}
	if err := o.sm.validate(); err != nil {
		return nil, err
	}
	return &sp, o.prepareOutputDirs()
}

// oneRun is what one timed run leaves, alone or one of --runs: its
// outcome and summary, its steady state, its records file, and the
// result's extra keys it brings (the self-check, a --users run's
// closed_loop, the server's).
type oneRun struct {
	outcome *bench.Outcome
	sum     *bench.Summary
	steady  sweep.Steady
	rec     *recordsOut
	extra   map[string]any
}

// once makes one timed run into rec: the step (internal/bench/step:
// the server's view, execute, its sinks), summarize, the step's close,
// and its extra keys.
func (o *runOptions) once(ctx context.Context, plan *bench.Plan, ui *console, rec *recordsOut) (*oneRun, error) {
	defer rec.Close(nil) // a path that fails before the closing line still ends the file
	st, err := o.execute(ctx, plan, ui, rec)
	if err != nil {
		return nil, err
	}
	o.srv = st.Server
	outcome := st.Outcome
	sum, err := bench.Summarize(plan, outcome)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	extra := map[string]any{selfCheckKey: report.SelfCheckObject(outcome.Verdict, &outcome.SelfCheck, outcome.Preconnected)}
	if o.f.users > 0 {
		// vLLM's num_prompts is the requests sent; the users cycled the
		// dataset's prompts for as long as the run went on.
		sent := len(outcome.Records)
		sum.Params.NumPrompts = &sent
		extra[report.ExtrasKey+"/closed_loop"] = o.closedLoopRun().Object(sent)
	}
	write, ss, err := st.Close(sum)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	report.AddServerExtras(extra, o.srv, selfCheckKey)
	return &oneRun{outcome: outcome, sum: sum, steady: sweep.Steady{Write: write, Value: ss}, rec: rec, extra: extra}, nil
}

// execute runs the step with the interrupt note (run's, not sweep's)
// and words its failures as exit codes.
func (o *runOptions) execute(ctx context.Context, plan *bench.Plan, ui *console, rec *recordsOut) (*step.Step, error) {
	stopNote := context.AfterFunc(ctx, func() {
		fmt.Fprintf(ui.errw, "\nInterrupted: no new requests; waiting up to %v for those in flight (Ctrl-C again to quit at once).\n", bench.DefaultGrace)
	})
	defer stopNote()
	r := o.stepRunner(ui)
	r.OnEvent = func(msg string) { fmt.Fprintln(ui.out, msg) }
	rec.Wrap = wrapFileWriter
	st, err := r.Run(ctx, plan, &rec.File)
	if errors.Is(err, bench.ErrInterruptedEarly) {
		return nil, &ExitError{Code: 130, Msg: err.Error()}
	}
	if e := (*bench.EndpointError)(nil); errors.As(err, &e) {
		return nil, &ExitError{Code: 1, Msg: "stopped early: " + e.Error() + prepare.EndpointHint(ctx, o.resolved, plan, e)}
	}
	if err != nil {
		return nil, err
	}
	if st.Outcome.Interrupted {
		fmt.Fprintf(ui.errw, "Interrupted: %d of %d requests finished or failed, %d never sent; the figures below cover what was measured.\n",
			len(st.Outcome.Records), len(plan.Requests), st.Outcome.NotSent)
	}
	return st, nil
}

// stepRunner is the step runner of run and sweep (internal/bench/step)
// from their flags: the server's view, the live exporter, the progress
// line and the steady state's options.
func (o *runOptions) stepRunner(ui *console) *step.Runner {
	f := &o.f
	return &step.Runner{Server: f.srv.options(), Base: o.baseURL(), Insecure: f.insecure, Worker: o.w.info != nil,
		Live: o.live, TTY: ui.tty, Errw: ui.errw, NoProgress: f.disableTqdm,
		SteadyState: metrics.SteadyStateOptions{Disabled: f.noSteadyState, Threshold: f.steadyStateThreshold,
			MinWindow: f.steadyStateMinWindow.Ptr()}}
}

// finish prints and saves a run's result: vLLM's table and our sections,
// the after-run sections, the result file beside rec and --html. With
// --runs, res's section over the runs is printed before the result is
// saved, and its keys join the result's.
func (o *runOptions) finish(ctx context.Context, ui *console, plan *bench.Plan, one *oneRun, rec *recordsOut, res *sweep.Repeated) error {
	if err := o.render(ui, plan, one); err != nil {
		return err
	}
	extra, err := o.afterRun(ctx, ui, plan, one)
	if err != nil {
		return err
	}
	maps.Copy(extra, one.extra)
	if res != nil {
		if err := res.WriteStats(ui.out); err != nil {
			return err
		}
		maps.Copy(extra, res.Extras())
	}
	if err := o.save(ui.out, one, extra, rec); err != nil {
		return err
	}
	return o.writeHTML(ui.out, one, extra)
}

// exitPolicy turns the run's verdict (bench.Judge: interrupted, nothing
// succeeded, too many errors) and the self-check (--require-valid: exit 1 unless it says valid) into an
// exit code.
func (o *runOptions) exitPolicy(ctx context.Context, plan *bench.Plan, outcome *bench.Outcome, sum *metrics.Summary) error {
	switch v := bench.Judge(outcome, sum, o.f.maxErrorRate.Ptr()); {
	case v.Interrupted:
		return &ExitError{Code: 130, Msg: "interrupted: partial results above (saved ones are marked \"interrupted\": true)"}
	case v.Alike != nil: // a run too small for the early stop gets its hint
		return &ExitError{Code: 1, Msg: v.Failure + prepare.EndpointHint(ctx, o.resolved, plan, v.Alike)}
	case v.Failure != "":
		return &ExitError{Code: 1, Msg: v.Failure}
	case o.f.requireValid && outcome.Verdict.Verdict != selfcheck.Valid:
		return &ExitError{Code: 1, Msg: fmt.Sprintf("--require-valid: the self-check says %s", outcome.Verdict)}
	}
	return nil
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
