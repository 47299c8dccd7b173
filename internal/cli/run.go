package cli

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/runner"
	"github.com/llmbench/llmbench/internal/tokenizer"
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

// maxNumPrompts bounds --num-prompts: every request's prompt, schedule
// slot and record are held in memory, so a typo such as 99999999999 would
// end in an out-of-memory crash instead of an error.
const maxNumPrompts = 1_000_000

// validate checks the flags that need no network, returning *UsageError.
func (o *runOptions) validate(cmd *cobra.Command) error {
	f := &o.f
	kind, err := bench.ParseKind(f.backend)
	if err != nil {
		return &UsageError{Err: err}
	}
	if f.ds.Name == dataset.TimedTrace && kind != bench.OpenAICompletions {
		// vLLM's words.
		return usageErrorf("timed_trace dataset passes pre-tokenized prompts (list[int]) and requires a completions backend ('vllm' or 'openai').")
	}
	if f.ds.NumPrompts <= 0 || f.ds.NumPrompts > maxNumPrompts {
		return usageErrorf("--num-prompts must be in 1..%d (got %d); split larger runs", maxNumPrompts, f.ds.NumPrompts)
	}
	if u := f.baseURL; u != "" && !strings.Contains(u, "://") {
		// Go's URL parser would say "first path segment in URL cannot
		// contain colon" of 127.0.0.1:8000.
		shown := "http://" + u
		if r := redactURL(shown); strings.HasPrefix(r, "http://") {
			shown = r
		}
		return usageErrorf("--base-url %s has no scheme: add http:// (--base-url %s) or https://", strings.TrimPrefix(shown, "http://"), shown)
	}
	if strings.ContainsAny(f.label, `/\`) {
		return usageErrorf("--label %q: must not contain a path separator (it starts the result file name; use --result-dir for folders)", f.label)
	}
	if f.maxConcurrency.set && f.maxConcurrency.v <= 0 {
		return usageErrorf("--max-concurrency must be positive (got %d); leave it out for no limit", f.maxConcurrency.v)
	}
	if r := float64(f.requestRate); r <= 0 {
		return usageErrorf("--request-rate must be positive or inf (got %v)", r)
	}
	if b := float64(f.burstiness); b <= 0 {
		return usageErrorf("--burstiness must be positive (got %v)", b)
	}
	if f.numWarmups < 0 {
		return usageErrorf("--num-warmups must not be negative")
	}
	if f.readyCheckSec < 0 {
		return usageErrorf("--ready-check-timeout-sec must not be negative")
	}
	if f.requestTimeout <= 0 {
		return usageErrorf("--request-timeout must be positive")
	}
	if f.maxErrorRate.set && (f.maxErrorRate.v < 0 || f.maxErrorRate.v > 1) {
		return usageErrorf("--max-error-rate must be in [0, 1] (got %v)", f.maxErrorRate.v)
	}
	if err := o.checkSteadyState(); err != nil {
		return err
	}
	if err := o.checkRepeat(cmd); err != nil {
		return err
	}
	// Presence is ours to check (the schedule cannot tell an unset rate from
	// 0); the values are checked by the schedule itself, with vLLM's
	// messages.
	if f.rampUpStrategy != "" && (!f.rampUpStartRPS.set || !f.rampUpEndRPS.set) {
		return usageErrorf("when using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified")
	}
	if f.rampUpStrategy == "" && (f.rampUpStartRPS.set || f.rampUpEndRPS.set) {
		return usageErrorf("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy")
	}
	if err := o.arrivals().Validate(); err != nil {
		return &UsageError{Err: err}
	}
	if err := o.checkClosedLoop(cmd); err != nil {
		return err
	}
	if _, err := metrics.ParseGoodput(f.goodput); err != nil {
		return &UsageError{Err: err}
	}
	if _, err := metrics.ParsePercentiles(f.metricPercentiles); err != nil {
		return &UsageError{Err: err}
	}
	if f.percentileMetrics != "" {
		if _, err := metrics.ParsePercentileMetrics(f.percentileMetrics); err != nil {
			return &UsageError{Err: err}
		}
	}
	if _, err := parseHeaders(f.headers); err != nil {
		return err
	}
	if _, err := parseMetadata(f.metadata); err != nil {
		return err
	}
	if _, err := o.extraBody(); err != nil {
		return err
	}
	if f.backend == "sagemaker" && o.sm.endpointName == "" {
		return usageErrorf("--backend sagemaker needs --endpoint-name")
	}
	if f.backend != "sagemaker" && o.sm.endpointName != "" {
		return usageErrorf("--endpoint-name needs --backend sagemaker")
	}
	return o.checkServerMetrics(cmd)
}

// checkClosedLoop checks --users and its companions.
func (o *runOptions) checkClosedLoop(cmd *cobra.Command) error {
	if o.sweepMode {
		return nil // sweep checks its ladder (checkSweep)
	}
	f := &o.f
	changed := func(name string) bool { return o.userSet(cmd, name) }
	if f.users < 0 || f.spawnRate < 0 || f.duration < 0 || f.warmupDuration < 0 {
		return usageErrorf("--users, --spawn-rate, --duration and --warmup-duration must not be negative")
	}
	if f.users == 0 {
		for _, name := range []string{"think-time", "spawn-rate", "warmup-duration"} {
			if changed(name) {
				return usageErrorf("--%s needs --users", name)
			}
		}
		return nil
	}
	for _, name := range []string{"request-rate", "max-concurrency", "ramp-up-strategy", "burstiness"} {
		if changed(name) {
			return usageErrorf("--users runs a closed loop: it replaces --%s (leave it out)", name)
		}
	}
	if _, err := o.users(); err != nil {
		return err
	}
	if f.warmupDuration > 0 && (f.duration == 0 || f.warmupDuration >= f.duration) {
		return usageErrorf("--warmup-duration needs a longer --duration")
	}
	return nil
}

// userSet reports whether the user gave flag name (on the command line or
// after "--"), as opposed to config.yaml or a default.
func (o *runOptions) userSet(cmd *cobra.Command, name string) bool {
	if cmd.Flags().Lookup(name) == nil || !cmd.Flags().Changed(name) {
		return false
	}
	if src, ok := o.cfg.sources[name]; ok {
		return src == srcFlag || src == srcDash
	}
	return true
}

// users is the closed-loop configuration of --users; nil without it.
func (o *runOptions) users() (*load.Users, error) {
	f := &o.f
	if f.users == 0 {
		return nil, nil
	}
	think, err := load.ParseThink(f.thinkTime)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--think-time: %w", err)}
	}
	return &load.Users{Users: f.users, Think: think, SpawnRate: f.spawnRate, Warmup: f.warmupDuration, Seed: uint64(f.ds.Seed)}, nil
}

// parseHeaders splits --header KEY=VALUE items at the first "=", trimming
// both sides, as vLLM does.
func parseHeaders(items []string) ([]openai.Header, error) {
	var hs []openai.Header
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("--header %s: want KEY=VALUE, e.g. --header 'Authorization=Bearer ...'", redactHeader(it))
		}
		hs = append(hs, openai.Header{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return hs, nil
}

// redactHeader names a malformed header item without its value, which
// may be a credential: the text before the first ":", "=" or blank (the
// header name in "Authorization: Bearer sk-..." or "Authorization=..."),
// else nothing at all (a bare item may be the token itself).
func redactHeader(item string) string {
	if i := strings.IndexAny(item, ":= \t"); i > 0 {
		return strconv.Quote(item[:i]+" ...") + " (value hidden)"
	}
	return "item (value hidden)"
}

// parseMetadata checks --metadata KEY=VALUE items.
func parseMetadata(items []string) ([]string, error) {
	for _, it := range items {
		if k, _, ok := strings.Cut(it, "="); !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("--metadata %q: want KEY=VALUE", it)
		}
	}
	return items, nil
}

// extraBody merges the sampling flags (only those given) and --extra-body
// (whose keys win), as vLLM builds its extra body.
func (o *runOptions) extraBody() (map[string]any, error) {
	f := &o.f
	m := map[string]any{}
	put := func(k string, v optFloat) {
		if v.set {
			m[k] = v.v
		}
	}
	put("top_p", f.topP)
	if f.topK.set {
		m["top_k"] = f.topK.v
	}
	put("min_p", f.minP)
	put("temperature", f.temperature)
	put("frequency_penalty", f.frequencyPen)
	put("presence_penalty", f.presencePen)
	put("repetition_penalty", f.repetitionPen)
	if f.extraBody != "" {
		// UseNumber keeps numbers as typed ({"seed": 42} stays 42, not 42.0),
		// as Python's json round trip does in vLLM.
		var extra map[string]any
		dec := json.NewDecoder(strings.NewReader(f.extraBody))
		dec.UseNumber()
		if err := dec.Decode(&extra); err != nil || extra == nil {
			return nil, usageErrorf("--extra-body: want a JSON object (%v)", errOr(err, "got null"))
		}
		// dec.More is false for a stray "]" or "}": only the end may follow.
		if _, err := dec.Token(); err != io.EOF {
			return nil, usageErrorf("--extra-body: want one JSON object, found more after it")
		}
		for k, v := range extra {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

// concurrency is the most requests that can be in flight.
func (o *runOptions) concurrency() int {
	if o.f.users > 0 {
		return o.f.users
	}
	if o.f.maxConcurrency.set {
		return o.f.maxConcurrency.v
	}
	return o.f.ds.NumPrompts
}

// baseURL is --base-url, or http://HOST:PORT.
func (o *runOptions) baseURL() string {
	if o.f.baseURL != "" {
		return strings.TrimRight(o.f.baseURL, "/")
	}
	return "http://" + net.JoinHostPort(o.f.host, strconv.Itoa(o.f.port))
}

// endpointPath is --endpoint, except that openai-chat with the default
// completions path gets the chat path: vLLM would abort there, and nobody
// means completions when they ask for chat.
func (o *runOptions) endpointPath(cmd *cobra.Command, notes io.Writer) string {
	if o.f.backend == "openai-chat" && !cmd.Flags().Changed("endpoint") && o.f.endpoint == "/v1/completions" {
		fmt.Fprintln(notes, "Note: --backend openai-chat without --endpoint: using /v1/chat/completions.")
		return "/v1/chat/completions"
	}
	return o.f.endpoint
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
	if o.f.repeat.repeated() {
		return o.runRepeated(ctx, env, plan, ui) // --runs: run_repeat.go
	}
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

func (o *runOptions) maxConcurrencyOrZero() int {
	if o.f.maxConcurrency.set {
		return o.f.maxConcurrency.v
	}
	return 0
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

// loadTokenizer resolves the tokenizer the way vLLM does (--tokenizer,
// else the model's). An explicit --tokenizer that fails is an error; the
// model's own that cannot be had gives nil and a note: the run goes on
// with the server's usage counts. A server that names its tokenizer in
// /v1/models (llmbench sim does) is taken at its word first.
func (o *runOptions) loadTokenizer(ctx context.Context, env *Env, ep *endpoint) (tok *tokenizer.Tokenizer, id, note string, err error) {
	f := &o.f
	if f.skipTokenizer {
		return nil, "", "", nil
	}
	name := f.tokenizer
	explicit := name != ""
	if !explicit {
		hinted, hintNote := o.serverTokenizer(ctx, env, ep)
		if hintNote != "" {
			return nil, "", hintNote, nil
		}
		name = cmp.Or(hinted, ep.modelID)
	}
	if name == "" {
		return nil, "", "Note: no tokenizer (no --tokenizer and no model id).", nil
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tok, err = tokenizer.Load(tctx, name, tokenizer.Options{Revision: f.tokenizerRev, Hub: hfhub.FromEnv(env.Getenv)})
	if err != nil {
		if explicit {
			return nil, "", "", tokenizerError(fmt.Errorf("--tokenizer %s: %w%s", name, err, offlineHint(err)))
		}
		return nil, "", fmt.Sprintf("Note: no tokenizer for model %q (%s); pass --tokenizer to count tokens exactly (a tokenizer.json, a folder, a Hugging Face id, or builtin:gpt2).", name, tokenizerFailure(err)), nil
	}
	if !explicit && name != ep.modelID {
		note = fmt.Sprintf("Note: counting tokens with %s, the tokenizer the server names in /v1/models.", name)
	}
	return tok, tok.ID(), note, nil
}

// serverTokenizer asks an HTTP server's /v1/models which tokenizer it
// counts with (the llmbench_tokenizer field llmbench sim sends; vLLM sends
// none). "words" means it counts one token per word, which no tokenizer
// file reproduces: then a short note replaces the hub look-up.
func (o *runOptions) serverTokenizer(ctx context.Context, env *Env, ep *endpoint) (name, note string) {
	if ep.http == nil {
		return "", ""
	}
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := openai.ListModels(mctx, ep.http.HTTPClient(), o.baseURL(), openai.Secret(env.Getenv("OPENAI_API_KEY")))
	if err != nil || len(models) == 0 {
		return "", ""
	}
	switch t := models[0].Tokenizer; t {
	case "":
		return "", ""
	case "words":
		return "", "Note: the server (llmbench sim) counts one token per word, so prompt lengths are approximate; for exact counts start it with --tokenizer builtin:gpt2 and pass the same --tokenizer here."
	default:
		return t, ""
	}
}

// tokenizerFailure says in a few words why a tokenizer could not be had.
func tokenizerFailure(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "dial tcp"), strings.Contains(msg, "connection refused"),
		strings.Contains(msg, "i/o timeout"), errors.Is(err, context.DeadlineExceeded):
		return "not in the Hugging Face cache, and the hub could not be reached"
	case strings.Contains(msg, "404"), strings.Contains(msg, "not found"):
		return "no such repository or file on the hub"
	case strings.Contains(msg, "401"), strings.Contains(msg, "403"):
		return "the hub refused access (gated model? set HF_TOKEN)"
	}
	return oneLine(msg)
}

// offlineHint points at the built-in tokenizer when the hub was out of
// reach.
func offlineHint(err error) string {
	if tokenizerFailure(err) == "not in the Hugging Face cache, and the hub could not be reached" {
		return " (offline? --tokenizer builtin:gpt2 is GPT-2's tokenizer built into llmbench; a tokenizer.json path works too)"
	}
	return ""
}

// datasetConfig maps the flags onto the dataset package's config.
func (o *runOptions) datasetConfig(env *Env) (dataset.Config, error) {
	c := o.f.ds
	c.Hub = hfhub.FromEnv(env.Getenv)
	if err := c.Validate(); err != nil {
		return c, &UsageError{Err: err}
	}
	return c, nil
}

// buildRequests turns samples into backend requests with vLLM's request
// ids, model names (LoRA round-robin), ignore_eos rule and extra body.
func (o *runOptions) buildRequests(samples []dataset.Request, model, datasetName, prefix string) ([]backend.Request, error) {
	f := &o.f
	extra, err := o.extraBody()
	if err != nil {
		return nil, err
	}
	// vLLM forces ignore_eos for the random dataset on OpenAI-compatible
	// backends so outputs run to max_tokens.
	ignoreEOS := f.ignoreEOS
	if (datasetName == dataset.Random || datasetName == dataset.TimedTrace) && o.openAICompatible() {
		ignoreEOS = true
	}
	reqs := make([]backend.Request, len(samples))
	for i, s := range samples {
		m := model
		if len(f.loraModules) > 0 {
			m = f.loraModules[i%len(f.loraModules)]
		}
		reqs[i] = backend.Request{
			Index:     i,
			ID:        prefix + strconv.Itoa(i),
			Model:     m,
			Prompt:    s.Prompt,
			PromptIDs: s.PromptIDs,
			Messages:  s.Messages,
			PromptLen: s.PromptLen,
			MaxTokens: s.OutputLen,
			IgnoreEOS: ignoreEOS,
			ExtraBody: extra,
		}
	}
	return reqs, nil
}

// requestIDPrefix is --request-id-prefix, or vLLM's random
// "bench-XXXXXXXX-".
func (o *runOptions) requestIDPrefix() string {
	if p := o.f.requestIDPrefix; p != "" {
		return p
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "bench-" + hex.EncodeToString(b[:]) + "-"
}

// openAICompatible reports whether the requests go to an OpenAI-compatible
// server (vLLM's rule for forcing ignore_eos), including SageMaker
// containers that speak the OpenAI API.
func (o *runOptions) openAICompatible() bool {
	if o.f.backend != "sagemaker" {
		return true
	}
	return strings.HasPrefix(o.sm.payloadFormat, "openai")
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
	think, _ := load.ParseThink(f.thinkTime)
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
	think, _ := load.ParseThink(f.thinkTime)
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

// arrivals is the arrival process the flags describe.
func (o *runOptions) arrivals() load.Arrivals {
	f := &o.f
	a := load.Arrivals{
		Rate:       float64(f.requestRate),
		Burstiness: float64(f.burstiness),
		Seed:       f.ds.Seed,
	}
	if f.rampUpStrategy != "" {
		a.RampStrategy = f.rampUpStrategy
		a.RampStartRPS = f.rampUpStartRPS.v
		a.RampEndRPS = f.rampUpEndRPS.v
	}
	return a
}
