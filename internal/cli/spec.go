package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/redact"
)

// maxNumPrompts bounds --num-prompts: every request's prompt, schedule
// slot and record are held in memory, so a typo such as 99999999999 would
// end in an out-of-memory crash instead of an error.
const maxNumPrompts = 1_000_000

// validate checks the flags that need no network, returning *UsageError.
func (o *runOptions) validate(cmd *cobra.Command) error {
	_, err := o.spec(cmd, nil)
	return err
}

// spec turns the flags into the run's bench.Spec, the one place they are
// parsed: every check that needs no network, in the order a user meets
// them (*UsageError), then every value the run reads. env nil (validate:
// checks only) leaves the API key out.
func (o *runOptions) spec(cmd *cobra.Command, env *Env) (bench.Spec, error) {
	f := &o.f
	kind, err := bench.ParseKind(f.backend)
	if err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	if err := o.checkRanges(kind); err != nil {
		return bench.Spec{}, err
	}
	if err := o.checkRepeat(cmd); err != nil {
		return bench.Spec{}, err
	}
	arrivals := o.arrivals()
	if err := arrivals.Validate(); err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	users, err := o.checkClosedLoop(cmd)
	if err != nil {
		return bench.Spec{}, err
	}
	goodput, err := o.checkMetrics()
	if err != nil {
		return bench.Spec{}, err
	}
	headers, err := parseHeaders(f.headers)
	if err != nil {
		return bench.Spec{}, err
	}
	if _, err := parseMetadata(f.metadata); err != nil {
		return bench.Spec{}, err
	}
	extra, err := o.extraBody()
	if err != nil {
		return bench.Spec{}, err
	}
	if f.backend == "sagemaker" && o.sm.endpointName == "" {
		return bench.Spec{}, usageErrorf("--backend sagemaker needs --endpoint-name")
	}
	if f.backend != "sagemaker" && o.sm.endpointName != "" {
		return bench.Spec{}, usageErrorf("--endpoint-name needs --backend sagemaker")
	}
	if err := o.checkServerMetrics(cmd); err != nil {
		return bench.Spec{}, err
	}
	var turnThink load.Think
	if f.multiTurn {
		if turnThink, err = load.ParseThink(f.turnThinkTime); err != nil {
			return bench.Spec{}, &UsageError{Err: fmt.Errorf("--turn-think-time: %w", err)}
		}
	}
	maxConc := o.maxConcurrencyOrZero()
	if users != nil {
		// A closed loop keeps its own requests in flight: demo's default
		// cap (config caps were dropped when resolved) does not apply.
		maxConc = 0
	}
	s := bench.Spec{
		Endpoint: bench.Endpoint{
			Kind: kind, BaseURL: o.baseURL(), Path: f.endpoint, PathGiven: cmd.Flags().Changed("endpoint"),
			Model: f.model, ServedModelName: f.servedModelName, Headers: headers, Insecure: f.insecure,
			Logprobs: f.logprobs.ptr(), MaxResponseBytes: f.maxResponseMiB << 20, SageMaker: o.sm.config(o.concurrency()),
		},
		Dataset:        f.ds,
		Tokenizer:      bench.TokenizerChoice{Name: f.tokenizer, Revision: f.tokenizerRev, Mode: f.tokenizerMode, Skip: f.skipTokenizer},
		Load:           bench.Load{Arrivals: arrivals, MaxConcurrency: maxConc, Duration: f.duration, Users: users},
		Request:        bench.RequestOptions{ExtraBody: extra, IgnoreEOS: f.ignoreEOS, LoRAModules: f.loraModules},
		MultiTurn:      f.multiTurn,
		TurnThink:      turnThink,
		NumWarmups:     f.numWarmups,
		RequestTimeout: f.requestTimeout,
		ReadyCheck:     time.Duration(f.readyCheckSec * float64(time.Second)),
		Preconnect:     f.preconnect,
		IDPrefix:       o.requestIDPrefix(),
		StrictTokens:   f.strictTokens,
		Params:         o.params(goodput),
	}
	if env != nil {
		s.Endpoint.APIKey = openai.Secret(env.Getenv("OPENAI_API_KEY"))
	}
	return s, nil
}

// checkRanges checks the flags whose values alone can be wrong.
func (o *runOptions) checkRanges(kind bench.Kind) error {
	f := &o.f
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
		if r := redact.URL(shown); strings.HasPrefix(r, "http://") {
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
	// Presence is ours to check (the schedule cannot tell an unset rate from
	// 0); the values are checked by the schedule itself, with vLLM's
	// messages.
	if f.rampUpStrategy != "" && (!f.rampUpStartRPS.set || !f.rampUpEndRPS.set) {
		return usageErrorf("when using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified")
	}
	if f.rampUpStrategy == "" && (f.rampUpStartRPS.set || f.rampUpEndRPS.set) {
		return usageErrorf("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy")
	}
	return nil
}

// checkMetrics checks the metric flags and returns the goodput SLOs.
func (o *runOptions) checkMetrics() (map[string]float64, error) {
	f := &o.f
	goodput, err := metrics.ParseGoodput(f.goodput)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if _, err := metrics.ParsePercentiles(f.metricPercentiles); err != nil {
		return nil, &UsageError{Err: err}
	}
	if f.percentileMetrics != "" {
		if _, err := metrics.ParsePercentileMetrics(f.percentileMetrics); err != nil {
			return nil, &UsageError{Err: err}
		}
	}
	return goodput, nil
}
