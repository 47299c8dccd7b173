package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/runner"
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
	// --spawn-rate are its own ladder's (checkClosedLoop is run's);
	// sweepLoop then names a closed-loop ladder ("sweep --concurrency";
	// "" for rates), for dropClosedLoopCap.
	sweepMode bool
	sweepLoop string
	// srv is the timed run's view of the server (--server-metrics,
	// servermetrics.go); nil when not asked for.
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
	return cmd
}

// run executes the benchmark: check the flags, plan, execute, summarize,
// render, finish. Each phase is a short function; the step itself
// (internal/bench) knows nothing of flags or output.
func (o *runOptions) run(ctx context.Context, env *Env, cmd *cobra.Command) error {
	// demo's default cap (run's config caps were dropped when resolved).
	o.dropClosedLoopCap(cmd, o.closedLoop(), env.Stderr)
	if err := o.checkAll(cmd); err != nil {
		return err
	}
	if err := ensureFileLimit(o.concurrency()); err != nil {
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
	if plan, err = o.w.share(plan, ui.errw); err != nil {
		return err
	}
	if o.live, err = startLive(ctx, o.m, plan, ui.out); err != nil {
		return err
	}
	defer o.live.finish(context.WithoutCancel(ctx), ui.errw)
	o.live.startPhase("main", plan)
	o.printBanner(ui.out)
	rec, err := o.openRecords(plan)
	if err != nil {
		return err
	}
	o.srv = o.startServer(ctx, ui.errw)
	defer o.srv.stop()
	outcome, err := o.execute(ctx, env, plan, ui, rec)
	if err != nil {
		rec.abandon(ui.errw) // keep the records of a run stopped early
		return err
	}
	o.srv.stop()
	sum, err := bench.Summarize(plan, outcome)
	if err != nil {
		return &UsageError{Err: err}
	}
	if o.f.users > 0 {
		// vLLM's num_prompts is the requests sent; the users cycled the
		// dataset's prompts for as long as the run went on.
		sent := len(outcome.Records)
		sum.Params.NumPrompts = &sent
	}
	o.srv.crossCheck(outcome, sum.Metrics)
	o.srv.toRecords(rec)
	rec.close(outcome, &sum.Params, ui.errw)
	steady, err := o.steadyState(plan, outcome, sum)
	if err != nil {
		return &UsageError{Err: err}
	}
	if err := o.render(ui, plan, outcome, sum, steady.value); err != nil {
		return err
	}
	extra, err := o.afterRun(ctx, ui, plan, outcome, sum)
	if err != nil {
		return err
	}
	if o.f.users > 0 {
		extra[report.ExtrasKey+"/closed_loop"] = o.closedLoopObject(len(outcome.Records))
	}
	o.srv.addExtras(extra)
	if err := o.save(ui.out, sum.Metrics, &sum.Params, outcome.Records, extra, rec, steady); err != nil {
		return err
	}
	if err := o.writeHTML(ui.out, sum, outcome, extra); err != nil {
		return err
	}
	if err := rec.failed(); err != nil {
		return err
	}
	return o.exitPolicy(ctx, env, plan, outcome, sum.Metrics)
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

// checkAll runs every check that needs no network.
func (o *runOptions) checkAll(cmd *cobra.Command) error {
	if err := o.validate(cmd); err != nil {
		return err
	}
	if err := o.sm.validate(); err != nil {
		return err
	}
	return o.prepareOutputDirs()
}

// printBanner prints what vLLM prints before the run. Python's str() of a
// float is its repr ("inf", "10.0").
func (o *runOptions) printBanner(out io.Writer) {
	f := &o.f
	if f.users > 0 {
		// A closed loop has no request rate or burstiness: vLLM's lines
		// would say "inf" and "Poisson process" of a run that had
		// neither (issue 29).
		fmt.Fprintf(out, "Closed loop: %s\n", o.closedLoopWords())
		fmt.Fprintf(out, "Maximum request concurrency: %d\n", f.users)
		return
	}
	burstKind := "Gamma distribution"
	if float64(f.burstiness) == 1 {
		burstKind = "Poisson process"
	}
	conc := "None"
	if f.maxConcurrency.set {
		conc = strconv.Itoa(f.maxConcurrency.v)
	}
	if f.rampUpStrategy != "" {
		fmt.Fprintf(out, "Traffic ramp-up strategy: %s.\n", f.rampUpStrategy)
		fmt.Fprintf(out, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", f.rampUpStartRPS.v, f.rampUpEndRPS.v)
	} else {
		fmt.Fprintf(out, "Traffic request rate: %s\n", report.PyRepr(float64(f.requestRate)))
	}
	fmt.Fprintf(out, "Burstiness factor: %s (%s)\n", report.PyRepr(float64(f.burstiness)), burstKind)
	fmt.Fprintf(out, "Maximum request concurrency: %s\n", conc)
}

// execute runs the step with a progress bar, the interrupt note and the
// records stream.
func (o *runOptions) execute(ctx context.Context, env *Env, plan *bench.Plan, ui *console, rec *recordsOut) (*bench.Outcome, error) {
	stopNote := context.AfterFunc(ctx, func() {
		fmt.Fprintf(ui.errw, "\nInterrupted: no new requests; waiting up to %v for those in flight (Ctrl-C again to quit at once).\n", runner.DefaultGrace)
	})
	defer stopNote()
	total := len(plan.Requests)
	if plan.Conversations != nil {
		total = *plan.Params.NumPrompts // every turn of every conversation
	}
	if plan.Load.Duration > 0 {
		total = 0 // bounded by time: the count is not known
	}
	bar := newProgress(ui.tty, ui.errw, total, o.f.disableTqdm)
	outcome, err := bench.Execute(ctx, plan, o.live.hooks(bench.Hooks{
		OnEvent:     func(msg string) { fmt.Fprintln(ui.out, msg) },
		OnStart:     bar.begin,
		OnRecord:    bar.add,
		OpenRecords: rec.open,
		BeforeStart: o.srv.beforeStart(ctx),
	}))
	bar.finish()
	if errors.Is(err, bench.ErrInterruptedEarly) {
		return nil, &ExitError{Code: 130, Msg: err.Error()}
	}
	if e := (*bench.EndpointError)(nil); errors.As(err, &e) {
		return nil, &ExitError{Code: 1, Msg: "stopped early: " + e.Error() + o.endpointHint(ctx, env, plan, e)}
	}
	if err != nil {
		return nil, err
	}
	if outcome.Interrupted {
		fmt.Fprintf(ui.errw, "Interrupted: %d of %d requests finished or failed, %d never sent; the figures below cover what was measured.\n",
			len(outcome.Records), len(plan.Requests), outcome.NotSent)
	}
	return outcome, nil
}

// render prints the warnings, the failures, vLLM's table and our sections.
func (o *runOptions) render(ui *console, plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary, steady *metrics.SteadyState) error {
	sum, out := s.Metrics, ui.out
	failures, canceled := failuresView(sum, outcome)
	if err := report.WriteWarnings(ui.errw, failures); err != nil {
		return err
	}
	if canceled > 0 {
		fmt.Fprintf(out, "Interrupted: %d requests in flight were canceled after the %v grace period; they count as failed (class canceled).\n", canceled, runner.DefaultGrace)
	}
	if n := canceledCount(outcome); !outcome.Interrupted && plan.Load.Duration > 0 && n > 0 {
		fmt.Fprintf(ui.errw, "Note: %d requests still in flight %v after --duration ended were canceled; they count as failed (class canceled).\n", n, runner.DefaultGrace)
	}
	opt := report.RunReportOptions{Title: report.StreamSpecifics, FromIntended: o.f.fromIntended, Failures: failures}
	if plan.Kind == bench.SageMaker {
		opt.Title = report.SageMakerSpecifics
	}
	if outcome.Interrupted {
		opt.AfterTable = func(w io.Writer) error {
			// Also on stdout: a table redirected to a file must say it is partial.
			_, err := fmt.Fprintf(w, "Note: interrupted (Ctrl-C): the figures above cover the %d of %d requests that finished or failed.\n", len(outcome.Records), len(plan.Requests))
			return err
		}
	}
	if steady != nil {
		// Under vLLM's table, where vLLM's Rust client prints it.
		note := opt.AfterTable
		opt.AfterTable = func(w io.Writer) error {
			if note != nil {
				if err := note(w); err != nil {
					return err
				}
			}
			return report.WriteSteadyState(w, steady)
		}
	}
	if err := report.WriteRunReport(out, sum, &s.Params, opt); err != nil {
		return err
	}
	if err := o.srv.writeSection(out); err != nil {
		return err
	}
	writeSelfCheck(out, outcome)
	o.srv.writeCheck(out)
	if plan.Tokenizer == nil && !o.f.skipTokenizer {
		fmt.Fprintln(out, "Note: no tokenizer: prompt lengths are approximate (word-based); output counts come from the server's usage frames (fallback-1 where there were none).")
	}
	return nil
}

// allFailedAlike is the failure every record shares (class and HTTP
// status), as bench.EndpointError; nil when they differ or one succeeded.
func allFailedAlike(outcome *bench.Outcome) *bench.EndpointError {
	var e *bench.EndpointError
	for i := range outcome.Records {
		r := &outcome.Records[i]
		switch {
		case r.Success:
			return nil
		case e == nil:
			e = &bench.EndpointError{Class: r.ErrorClass, Status: r.HTTPStatus, First: r.Error}
		case e.Class != r.ErrorClass || e.Status != r.HTTPStatus:
			return nil
		}
		e.N++
	}
	return e
}

// canceledCount counts the records that failed as canceled.
func canceledCount(outcome *bench.Outcome) int {
	n := 0
	for i := range outcome.Records {
		if outcome.Records[i].ErrorClass == record.ErrCanceled {
			n++
		}
	}
	return n
}

// firstError is the first failed record's error text.
func firstError(outcome *bench.Outcome) string {
	for i := range outcome.Records {
		if r := &outcome.Records[i]; !r.Success {
			return oneLine(r.Error)
		}
	}
	return "none"
}

// failuresView is the summary the failure lines and warnings are printed
// from: after an interrupt, the requests the interrupt itself canceled are
// counted apart (a "misconfiguration" warning and ten canceled lines would
// blame the wrong thing). The table is always printed from the summary.
func failuresView(sum *metrics.Summary, outcome *bench.Outcome) (*metrics.Summary, int) {
	if !outcome.Interrupted {
		return sum, 0
	}
	v := *sum
	v.FailedErrors, v.Warnings = nil, nil
	canceled := 0
	for i := range outcome.Records {
		r := &outcome.Records[i]
		switch {
		case r.Success:
		case r.ErrorClass == record.ErrCanceled:
			canceled++
		case len(v.FailedErrors) < 10:
			v.FailedErrors = append(v.FailedErrors, r.Error)
		}
	}
	v.Failed -= canceled
	for _, w := range sum.Warnings {
		if w != metrics.AllFailedWarning || v.Failed > 0 {
			v.Warnings = append(v.Warnings, w)
		}
	}
	return &v, canceled
}

// afterRun adds the SageMaker sections (CloudWatch, cost) and returns the
// result's extra keys.
func (o *runOptions) afterRun(ctx context.Context, ui *console, plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary) (map[string]any, error) {
	sum, out := s.Metrics, ui.out
	extra := map[string]any{selfCheckKey: selfCheckObject(outcome)}
	if plan.Kind == bench.SageMaker {
		extra["sagemaker"] = o.sm.resultInfo()
		wallEnd := outcome.Start.Add(outcome.Duration)
		cw, cwErr := o.sm.cloudWatch(ctx, outcome.Start, wallEnd, len(outcome.Records)+o.f.numWarmups)
		if cwErr != nil {
			fmt.Fprintln(ui.errw, "Warning: CloudWatch:", cwErr)
		}
		if cw != nil {
			e2el, ttft := meanMs(sum, metrics.E2EL), meanMs(sum, metrics.TTFT)
			if err := cloudwatch.WriteTable(out, cw, e2el, ttft); err != nil {
				return nil, err
			}
			extra["cloudwatch"] = cw
		}
	}
	est, err := o.sm.costEstimate(outcome.Duration, sum.Completed, sum.TotalOutput)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if est != nil {
		extra["cost"] = est
	}
	if plan.Kind == bench.SageMaker || est != nil {
		if err := o.sm.writeAfterRun(out, est); err != nil {
			return nil, err
		}
	}
	return extra, nil
}

// exitPolicy turns an interrupted run or too many errors into an exit code.
func (o *runOptions) exitPolicy(ctx context.Context, env *Env, plan *bench.Plan, outcome *bench.Outcome, sum *metrics.Summary) error {
	if outcome.Interrupted {
		return &ExitError{Code: 130, Msg: "interrupted: partial results above (saved ones are marked \"interrupted\": true)"}
	}
	n := len(outcome.Records)
	if n > 0 && sum.Completed == 0 {
		// A run too small for the early stop (abortAfter) gets the same
		// hint when its requests all failed alike.
		hint := ""
		if e := allFailedAlike(outcome); e != nil {
			hint = o.endpointHint(ctx, env, plan, e)
		}
		return &ExitError{Code: 1, Msg: fmt.Sprintf("no request succeeded (%d of %d failed; first error: %s)%s", sum.Failed, n, firstError(outcome), hint)}
	}
	if o.f.maxErrorRate.set && n > 0 {
		rate := float64(sum.Failed) / float64(n)
		if rate > o.f.maxErrorRate.v {
			return &ExitError{Code: 1, Msg: fmt.Sprintf("error rate %.2f%% (%d of %d requests failed) exceeds --max-error-rate %.2f%%",
				100*rate, sum.Failed, n, 100*o.f.maxErrorRate.v)}
		}
	}
	return requireValid(o.f.requireValid, outcome)
}

// meanMs is the mean of a reported metric in ms, NaN when not reported.
func meanMs(s *metrics.Summary, name string) float64 {
	for _, m := range s.Metrics {
		if m.Metric == name {
			return m.Mean
		}
	}
	return math.NaN()
}

// prepareOutputDirs creates the folders the result and records files go
// to before anything is sent, so a bad --result-dir fails at once rather
// than after a long run whose result then cannot be written.
func (o *runOptions) prepareOutputDirs() error {
	f := &o.f
	var files []string
	if f.saveResult || f.appendResult {
		files = append(files, filepath.Join(f.resultDir, f.resultFilename+"x"))
	}
	if f.saveRecordsPath != "" {
		files = append(files, f.saveRecordsPath)
	}
	for _, file := range files {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return usageErrorf("cannot create the folder for saved results: %v", err)
		}
	}
	return nil
}

// save writes the result JSON when asked; the records went to disk while
// the run went on (recordsOut).
func (o *runOptions) save(out io.Writer, sum *metrics.Summary, p *record.Params, recs []record.Record, extra map[string]any, rec *recordsOut, steady steadyStateOut) error {
	f := &o.f
	if rec.path != "" && !rec.temp && rec.err == nil {
		if f.saveRecordsPath != "" {
			fmt.Fprintf(out, "Records saved to %s\n", rec.path)
		} else {
			fmt.Fprintf(out, "Per-request records saved to %s (recompute with: llmbench metrics %s)\n", rec.path, rec.path)
		}
	}
	if !f.saveResult && !f.appendResult {
		return nil
	}
	obj, err := report.Result(sum, p, recs, report.ResultOptions{Detailed: f.saveDetailed, Extras: true,
		WithSteadyState: steady.write, SteadyState: steady.value})
	if err != nil {
		return err
	}
	// Sorted: the saved file must not depend on map iteration order.
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		setExtra(obj, k, extra[k])
	}
	path, err := report.SaveResult(f.resultDir, o.resultName(p), f.appendResult, obj)
	if err != nil {
		if rec.temp && rec.err == nil {
			return fmt.Errorf("saving result: %w (the per-request records are kept in %s; recompute with: llmbench metrics %s)", err, rec.path, rec.path)
		}
		return fmt.Errorf("saving result: %w", err)
	}
	fmt.Fprintf(out, "Result saved to %s\n", path)
	rec.removeTemp()
	return nil
}

// writeHTML writes --html: the run page of the report, from the records
// in memory (so it needs no saved file).
func (o *runOptions) writeHTML(out io.Writer, s *bench.Summary, outcome *bench.Outcome, extra map[string]any) error {
	path := o.f.htmlPath
	if path == "" {
		return nil
	}
	name := o.resultName(&s.Params)
	err := writeFileWith(path, func(w io.Writer) error {
		return htmlreport.WriteRun(w, name, s.Metrics, &s.Params, outcome.Records, extra, htmlreport.Options{Title: "llmbench run: " + name})
	})
	if err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	fmt.Fprintf(out, "HTML report written to %s\n", path)
	return nil
}

// resultName is --result-filename, or vLLM's name for the run; a --users
// run is named after its users (vLLM's name would say "infqps" and
// "concurrency16" of it).
func (o *runOptions) resultName(p *record.Params) string {
	if o.f.resultFilename != "" {
		return o.f.resultFilename
	}
	if o.f.users > 0 {
		return usersFilename(p, o.f.users)
	}
	return report.ResultFilename(p)
}

// usersFilename is a closed-loop run's result file name in vLLM's shape:
// {label}-users{N}-{model}-{date}.json, label being --label or the
// backend and model the part of the model id after its last "/".
func usersFilename(p *record.Params, users int) string {
	base := p.ModelID
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	label := p.Backend
	if p.Label != nil && *p.Label != "" {
		label = *p.Label
	}
	return fmt.Sprintf("%s-users%d-%s-%s.json", label, users, base, p.Date)
}

// closedLoopWords describes a --users run: "16 users, think time
// 1s-3s, 5 started per second, for 20s (the first 5s left out)".
func (o *runOptions) closedLoopWords() string {
	f := &o.f
	s := fmt.Sprintf("%d users", f.users)
	think := o.resolved.Load.Users.Think
	if think.Max > 0 {
		s += ", think time " + think.String()
	} else {
		s += ", no think time"
	}
	if f.spawnRate > 0 {
		s += ", " + strconv.FormatFloat(f.spawnRate, 'f', -1, 64) + " started per second"
	} else {
		s += ", all started at once"
	}
	if f.duration > 0 {
		s += ", for " + f.duration.String()
		if f.warmupDuration > 0 {
			s += " (the first " + f.warmupDuration.String() + " left out)"
		}
	} else {
		s += fmt.Sprintf(", %d requests", f.ds.NumPrompts)
	}
	return s
}

// closedLoopObject is the result's llmbench.closed_loop object of a
// --users run: what the run was (vLLM's keys cannot say it) and what
// num_prompts then counts.
func (o *runOptions) closedLoopObject(sent int) *report.Object {
	f := &o.f
	think := o.resolved.Load.Users.Think
	x := report.NewObject()
	x.Set("users", f.users)
	x.Set("think_time", think.String())
	x.Set("think_time_min_s", think.Min.Seconds())
	x.Set("think_time_max_s", think.Max.Seconds())
	x.Set("spawn_rate", f.spawnRate)
	x.Set("duration_s", f.duration.Seconds())
	x.Set("warmup_duration_s", f.warmupDuration.Seconds())
	x.Set("dataset_prompts", f.ds.NumPrompts)
	x.Set("num_prompts_note", fmt.Sprintf("num_prompts is the %d requests sent in the timed run; the users took the dataset's %d prompts in turn, cycling them", sent, f.ds.NumPrompts))
	return x
}
