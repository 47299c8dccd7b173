package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/prepare"
	"github.com/llmbench/llmbench/internal/config"
	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// validate checks the flags that need no network, returning *UsageError.
func (o *runOptions) validate(cmd *cobra.Command) error {
	_, err := o.spec(cmd, nil)
	return err
}

// spec turns the flags into the run's bench.Spec, the one place they are
// parsed: every check that needs no network, in the order a user meets
// them (*UsageError; the checks are the typed values' own), then every
// value the run reads. env nil (validate: checks only) leaves the API key
// out.
func (o *runOptions) spec(cmd *cobra.Command, env *Env) (bench.Spec, error) {
	f := &o.f
	kind, err := bench.ParseKind(f.backend)
	if err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	ranges := bench.Ranges{Kind: kind, Dataset: f.ds.Name, NumPrompts: f.ds.NumPrompts, BaseURL: f.baseURL, Label: f.label,
		MaxConcurrency: f.maxConcurrency.Ptr(), RequestRate: float64(f.requestRate), Burstiness: float64(f.burstiness),
		NumWarmups: f.numWarmups, ReadyCheckSec: f.readyCheckSec, RequestTimeout: f.requestTimeout,
		MaxErrorRate: f.maxErrorRate.V, MaxErrorRateGiven: f.maxErrorRate.Given,
		RampStrategy: f.rampUpStrategy, RampStartGiven: f.rampUpStartRPS.Given, RampEndGiven: f.rampUpEndRPS.Given,
		EndpointName: o.sm.cfg.EndpointName}
	if err := ranges.Check(); err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	if err := checkSteadyStateFlags(f.steadyStateThreshold, f.steadyStateMinWindow); err != nil {
		return bench.Spec{}, err
	}
	if err := ranges.CheckRamp(); err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	if err := o.checkRepeat(cmd); err != nil {
		return bench.Spec{}, err
	}
	arrivals := o.arrivals()
	if err := arrivals.Validate(); err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	var users *load.Users
	if !o.sweepMode { // sweep checks its ladder (checkSweep)
		loop := bench.ClosedLoop{Users: f.users, SpawnRate: f.spawnRate, Duration: f.duration, Warmup: f.warmupDuration,
			Think: f.thinkTime, Seed: f.ds.Seed, Given: func(name string) bool { return o.userSet(cmd, name) }}
		if users, err = loop.Loop(); err != nil {
			return bench.Spec{}, &UsageError{Err: err}
		}
	}
	reported := f.reported()
	goodput, err := metrics.ParseSettings(f.goodput, reported.percentiles, reported.metrics)
	if err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	headers, err := openai.ParseHeaders(f.headers)
	if err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	if err := record.CheckMetadata(f.metadata); err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	extra, err := openai.ExtraBody(o.sampling(), f.extraBody)
	if err != nil {
		return bench.Spec{}, &UsageError{Err: err}
	}
	if err := ranges.CheckEndpointName(); err != nil {
		return bench.Spec{}, &UsageError{Err: err}
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
	maxConc := 0
	if f.maxConcurrency.Given && users == nil {
		// A closed loop keeps its own requests in flight: demo's default
		// cap (config caps were dropped when resolved) does not apply.
		maxConc = f.maxConcurrency.V
	}
	s := bench.Spec{
		Endpoint: bench.Endpoint{
			Kind: kind, BaseURL: o.baseURL(), Path: f.endpoint, PathGiven: cmd.Flags().Changed("endpoint"),
			Model: f.model, ServedModelName: f.servedModelName, Headers: headers, Insecure: f.insecure,
			Logprobs: f.logprobs.Ptr(), MaxResponseBytes: f.maxResponseMiB << 20,
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
		IDPrefix:       bench.IDPrefix(f.requestIDPrefix, o.w.r.IDPrefix), // given, a worker's, or random
		StrictTokens:   f.strictTokens,
	}
	s.Endpoint.SageMaker = o.sm.config(s.InFlight())
	s.Params = s.DescribeLoad(o.params(goodput))
	if env != nil {
		s.Endpoint.APIKey = openai.Secret(env.Getenv("OPENAI_API_KEY"))
	}
	return s, nil
}

// userSet reports whether the user gave flag name (on the command line or
// after "--"), as opposed to config.yaml or a default. Once the
// configuration's layers are merged (resolveConfig) the merged set
// answers; a command without a configuration (demo) asks pflag.
func (o *runOptions) userSet(cmd *cobra.Command, name string) bool {
	if o.cfg.sources != nil {
		src := o.cfg.sources[name]
		return src == config.SourceFlag || src == config.SourceDash
	}
	return cmd.Flags().Lookup(name) != nil && cmd.Flags().Changed(name)
}

// sampling are the sampling flags given, by body key (openai.ExtraBody).
func (o *runOptions) sampling() map[string]any {
	f, m := &o.f, map[string]any{}
	for k, v := range map[string]flagset.OptFloat{"top_p": f.topP, "min_p": f.minP, "temperature": f.temperature,
		"frequency_penalty": f.frequencyPen, "presence_penalty": f.presencePen, "repetition_penalty": f.repetitionPen} {
		if v.Given {
			m[k] = v.V
		}
	}
	if f.topK.Given {
		m["top_k"] = f.topK.V
	}
	return m
}

// arrivals is the arrival process the flags describe.
func (o *runOptions) arrivals() load.Arrivals {
	f := &o.f
	a := load.Arrivals{Rate: float64(f.requestRate), Burstiness: float64(f.burstiness), Seed: f.ds.Seed}
	if f.rampUpStrategy != "" {
		a.RampStrategy, a.RampStartRPS, a.RampEndRPS = f.rampUpStrategy, f.rampUpStartRPS.V, f.rampUpEndRPS.V
	}
	return a
}

// baseURL is demo's simulator, else --base-url, else http://HOST:PORT.
func (o *runOptions) baseURL() string {
	if o.f.simURL != "" {
		return strings.TrimRight(o.f.simURL, "/")
	}
	if o.f.baseURL != "" {
		return strings.TrimRight(o.f.baseURL, "/")
	}
	return "http://" + net.JoinHostPort(o.f.host, strconv.Itoa(o.f.port))
}

// params describe the run for metrics and reports as the flags give it;
// bench.Spec.DescribeLoad adds the load, prepare.Build the model and the
// tokenizer, bench.FinalParams the rest.
func (o *runOptions) params(goodput map[string]float64) record.Params {
	f := &o.f
	reported := f.reported()
	p := record.Params{PercentileMetrics: reported.metrics, MetricPercentiles: reported.percentiles, Backend: f.backend, Metadata: f.metadata}
	if len(goodput) > 0 {
		p.Goodput = goodput
	}
	if f.label != "" {
		l := f.label
		p.Label = &l
	}
	return p
}

// plan turns the flags into the run's Spec (kept in o.resolved for the
// hints and sections that follow) and the Spec into the step's plan:
// backend, tokenizer, prompts, requests and load (prepare.Build).
func (o *runOptions) plan(ctx context.Context, env *Env, cmd *cobra.Command, errw io.Writer) (*bench.Plan, func(), error) {
	spec, err := o.spec(cmd, env)
	if err != nil {
		return nil, nil, err
	}
	o.resolved = &spec
	p, closeBE, err := prepare.Build(ctx, spec, prepare.Deps{Notes: errw, Hub: hfhub.FromEnv(env.Getenv)})
	if err != nil {
		return nil, nil, usageOf(err)
	}
	if b, ok := p.Backend.(*sagemaker.Backend); ok {
		o.sm.backend = b // CloudWatch reads with its region and credentials
	}
	return p, closeBE, nil
}

// usageOf makes prepare's input errors usage errors (exit code 2).
func usageOf(err error) error {
	if e, ok := err.(*prepare.InputError); ok {
		return &UsageError{Err: e.Err}
	}
	return err
}

// tokenizerError makes a tokenizer that cannot work (no such file or hub
// repository, a broken or unsupported tokenizer.json) a usage error, exit
// code 2; a network failure stays a plain error.
func tokenizerError(err error) error {
	if errors.Is(err, tokenizer.ErrInvalid) {
		return &UsageError{Err: err}
	}
	return err
}
