package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// endpoint is the backend a plan talks to and the names it goes by.
type endpoint struct {
	kind bench.Kind
	be   backend.Backend
	// close releases the backend's connections (never nil).
	close func()
	// http is the OpenAI client (for /tokenize); nil for SageMaker.
	http *openai.Client
	// modelID names the model in reports and file names; requestModel is
	// the body's "model" ("" = omit, SageMaker without a model name).
	modelID, requestModel string
	// connLimit is the backend's cap on open connections (0 = none):
	// bench.Plan.ConnLimit, for the self-check.
	connLimit int
}

// plan resolves every flag once into the step's plan: backend, tokenizer,
// prompts, requests and load.
func (o *runOptions) plan(ctx context.Context, env *Env, cmd *cobra.Command, errw io.Writer) (*bench.Plan, func(), error) {
	ep, err := o.newEndpoint(ctx, env, cmd, errw)
	if err != nil {
		return nil, nil, err
	}
	p, err := o.planWith(ctx, env, ep, errw)
	if err != nil {
		ep.close()
		return nil, nil, err
	}
	return p, ep.close, nil
}

func (o *runOptions) planWith(ctx context.Context, env *Env, ep *endpoint, errw io.Writer) (*bench.Plan, error) {
	f := &o.f
	if m := f.tokenizerMode; m != "auto" && m != "hf" && !f.skipTokenizer {
		fmt.Fprintf(errw, "Warning: --tokenizer-mode %s is not supported: tokens are counted with the Hugging Face tokenizer.json, which may count differently\n", m)
	}
	tok, tokID, tokNote, err := o.loadTokenizer(ctx, env, ep)
	if err != nil {
		return nil, err
	}
	if tokNote != "" {
		fmt.Fprintln(errw, tokNote)
	}
	if f.multiTurn {
		return o.planConversations(ctx, env, ep, tok, tokID, errw)
	}
	samples, dsName, err := o.loadSamples(ctx, env, tok, errw)
	if err != nil {
		return nil, err
	}
	if ep.http != nil && f.readyCheckSec == 0 {
		// Without a ready check nobody waits for the server: a refused
		// connection now would only fail every request later (and first
		// muddle the /tokenize comparison).
		if err := probeServer(ctx, o.baseURL()); err != nil {
			return nil, err
		}
	}
	if samples, err = o.alignPrompts(ctx, env, ep, tok, samples, dsName, errw); err != nil {
		return nil, err
	}
	prefix := o.requestIDPrefix()
	reqs, err := o.buildRequests(samples, ep.requestModel, dsName, prefix)
	if err != nil {
		return nil, err
	}
	users, err := o.users()
	if err != nil {
		return nil, err
	}
	sched, selfTimed := dataset.TraceSchedule(samples)
	if selfTimed {
		// vLLM's words: the trace's timestamps replace the arrival process.
		fmt.Fprintln(errw, "Self timing is set, using the timestamps from the trace file.")
	}
	return &bench.Plan{
		Schedule:       sched,
		Kind:           ep.kind,
		Backend:        ep.be,
		Requests:       reqs,
		IDPrefix:       prefix,
		Load:           bench.Load{Arrivals: o.arrivals(), MaxConcurrency: o.maxConcurrencyOrZero(), Duration: f.duration, Users: users},
		AbortAfter:     abortAfter(len(reqs)),
		NumWarmups:     f.numWarmups,
		RequestTimeout: f.requestTimeout,
		ReadyCheck:     time.Duration(f.readyCheckSec * float64(time.Second)),
		Tokenizer:      tok,
		Params:         o.recordParams(ep.modelID, tok != nil, tokID),
		Preconnect:     f.preconnect,
		ConnLimit:      ep.connLimit,
	}, nil
}

// maxResponseBytes is --max-response-mib in bytes (0: the backend's
// default).
func (o *runOptions) maxResponseBytes() int { return o.f.maxResponseMiB << 20 }

// earlyFailures is how many requests must fail alike, with nothing else
// finished, before a run stops as misconfigured (bench.Plan.AbortAfter).
const earlyFailures = 5

// abortAfter is bench.Plan.AbortAfter for a run of n requests: off for
// small runs, which fail fast anyway and print their full table.
func abortAfter(n int) int {
	if n <= 2*earlyFailures {
		return 0
	}
	return earlyFailures
}

// newEndpoint builds the backend the flags name.
func (o *runOptions) newEndpoint(ctx context.Context, env *Env, cmd *cobra.Command, errw io.Writer) (*endpoint, error) {
	kind, err := bench.ParseKind(o.f.backend)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if kind == bench.SageMaker {
		return o.newSageMakerEndpoint(ctx)
	}
	return o.newOpenAIEndpoint(ctx, env, cmd, kind, errw)
}

func (o *runOptions) newSageMakerEndpoint(ctx context.Context) (*endpoint, error) {
	f := &o.f
	b, err := o.sm.newBackend(ctx, o.concurrency(), o.maxResponseBytes())
	if err != nil {
		return nil, err
	}
	// The container serves whatever model it loaded: the body names one
	// only when the user did (a wrong name is a 404 from vLLM). The
	// endpoint name stands in for the model in reports and file names.
	ep := &endpoint{kind: bench.SageMaker, be: b, close: func() {}, modelID: f.model, requestModel: f.servedModelName}
	if ep.requestModel == "" {
		ep.requestModel = f.model
	}
	if ep.modelID == "" {
		ep.modelID = o.sm.endpointName
	}
	return ep, nil
}

func (o *runOptions) newOpenAIEndpoint(ctx context.Context, env *Env, cmd *cobra.Command, kind bench.Kind, errw io.Writer) (*endpoint, error) {
	f := &o.f
	api := openai.Completions
	if kind == bench.OpenAIChat {
		api = openai.Chat
	}
	headers, _ := parseHeaders(f.headers)
	apiURL := o.baseURL() + o.endpointPath(cmd, errw)
	if err := openai.CheckURL(api, apiURL); err != nil {
		return nil, &UsageError{Err: err}
	}
	c, err := openai.New(openai.Config{
		URL:              apiURL,
		API:              api,
		APIKey:           openai.Secret(env.Getenv("OPENAI_API_KEY")),
		Headers:          headers,
		Logprobs:         f.logprobs.ptr(),
		MaxConcurrency:   o.maxConcurrencyOrZero(),
		Timeout:          f.requestTimeout,
		Insecure:         f.insecure,
		MaxResponseBytes: o.maxResponseBytes(),
	})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	ep := &endpoint{kind: kind, be: c, close: c.Close, http: c, modelID: f.model, connLimit: o.maxConcurrencyOrZero()}
	if ep.modelID == "" {
		if err := o.modelFromServer(ctx, env, c, ep, errw); err != nil {
			c.Close()
			return nil, err
		}
	}
	ep.requestModel = f.servedModelName
	if ep.requestModel == "" {
		ep.requestModel = ep.modelID
	}
	return ep, nil
}

// modelFromServer asks /v1/models for the model when --model is not given,
// as vLLM does, and says which it took (a server serving several would
// otherwise be measured on one nobody named).
func (o *runOptions) modelFromServer(ctx context.Context, env *Env, c *openai.Client, ep *endpoint, notes io.Writer) error {
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	models, err := openai.ListModels(mctx, c.HTTPClient(), o.baseURL(), openai.Secret(env.Getenv("OPENAI_API_KEY")))
	if err != nil {
		// err names the URL; ListModels fails on an empty list too.
		return fmt.Errorf("no --model given, and the server's model list could not be read: %w", err)
	}
	ep.modelID = models[0].ID
	if models[0].Root != "" {
		ep.modelID = models[0].Root
	}
	if o.f.servedModelName == "" {
		o.f.servedModelName = models[0].ID
	}
	others := ""
	if len(models) > 1 {
		others = fmt.Sprintf(", the first of %d it lists", len(models))
	}
	fmt.Fprintf(notes, "Model: %s (from the server's /v1/models%s; --model chooses)\n", models[0].ID, others)
	return nil
}

// loadSamples loads the dataset's prompts.
func (o *runOptions) loadSamples(ctx context.Context, env *Env, tok *tokenizer.Tokenizer, errw io.Writer) ([]dataset.Request, string, error) {
	dcfg, err := o.datasetConfig(env)
	if err != nil {
		return nil, "", err
	}
	var dtok dataset.Tokenizer
	if tok != nil {
		dtok = tok
	}
	samples, warns, err := dataset.Load(ctx, dcfg, dtok)
	if err != nil {
		return nil, "", &UsageError{Err: err}
	}
	for _, w := range warns {
		fmt.Fprintln(errw, "Warning:", w)
	}
	return samples, dcfg.Name, nil
}

// alignPrompts compares our token counts with the server's /tokenize and,
// for generated prompts, re-aligns them to the server's tokenizer as vLLM
// does. Only for OpenAI-compatible HTTP servers, with a tokenizer.
func (o *runOptions) alignPrompts(ctx context.Context, env *Env, ep *endpoint, tok *tokenizer.Tokenizer, samples []dataset.Request, dsName string, errw io.Writer) ([]dataset.Request, error) {
	if ep.http == nil || tok == nil {
		return samples, nil
	}
	// The same credentials and headers as the benchmark's requests.
	hdr := http.Header{}
	if key := env.Getenv("OPENAI_API_KEY"); key != "" {
		hdr.Set("Authorization", "Bearer "+key)
	}
	extraHeaders, _ := parseHeaders(o.f.headers)
	for _, h := range extraHeaders {
		hdr.Set(h.Key, h.Value)
	}
	tc := &openai.TokenizeClient{BaseURL: o.baseURL(), Model: ep.requestModel, Client: ep.http.HTTPClient(), Header: hdr}
	// Compare counts first: vLLM's alignment below silently fixes the
	// random prompts, but the user should know the tokenizers differ.
	twarn, err := checkServerTokens(ctx, tc, tok, samples, o.f.strictTokens)
	if err != nil {
		return nil, err
	}
	for _, w := range twarn {
		fmt.Fprintln(errw, "Warning:", w)
	}
	if dsName != dataset.Random && dsName != dataset.PrefixRepetition {
		return samples, nil
	}
	aligned, awarn, err := dataset.AlignToServer(ctx, tc, samples)
	if err != nil {
		return nil, err
	}
	for _, w := range awarn {
		// The count check above already said the tokenizers differ.
		if len(twarn) > 0 && strings.HasPrefix(w, "tokenizer mismatch") {
			continue
		}
		fmt.Fprintln(errw, "Warning:", w)
	}
	return aligned, nil
}

// recordParams describes the run for metrics and reports as far as it is
// known before dispatch (bench.FinalParams adds the rest).
func (o *runOptions) recordParams(modelID string, haveTok bool, tokID string) record.Params {
	f := &o.f
	p := record.Params{
		RequestRate:       record.Rate(float64(f.requestRate)),
		Burstiness:        record.Rate(float64(f.burstiness)),
		MaxConcurrency:    f.maxConcurrency.ptr(),
		PercentileMetrics: f.percentileMetrics,
		MetricPercentiles: f.metricPercentiles,
		Backend:           f.backend,
		ModelID:           modelID,
		Metadata:          f.metadata,
	}
	n := f.ds.NumPrompts
	p.NumPrompts = &n
	if f.users > 0 {
		u := f.users // at most this many in flight, sent as fast as they come back
		p.MaxConcurrency, p.RequestRate = &u, record.Inf
	}
	if g, _ := metrics.ParseGoodput(f.goodput); len(g) > 0 {
		p.Goodput = g
	}
	if f.label != "" {
		l := f.label
		p.Label = &l
	}
	if f.rampUpStrategy != "" {
		p.RampUpStrategy = f.rampUpStrategy
		p.RampUpStartRPS = f.rampUpStartRPS.ptr()
		p.RampUpEndRPS = f.rampUpEndRPS.ptr()
	}
	switch {
	case f.skipTokenizer:
		p.Tokenizer = record.TokenizerNone
	case haveTok:
		p.Tokenizer = tokID
	default:
		// No tokenizer could be had: vLLM would fail here; we go on with the
		// server's counts and say so (tokenizer_id names what we did).
		p.Tokenizer = "approximate"
		p.TokenizerID = "none (server usage counts; approximate prompt lengths)"
	}
	if f.backend == "sagemaker" {
		p.EndpointName = o.sm.endpointName
	}
	return p
}
