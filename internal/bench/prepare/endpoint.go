package prepare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench"
)

// endpoint is the backend a plan talks to and the names it goes by.
type endpoint struct {
	kind bench.Kind
	be   backend.Backend
	// close releases the backend's connections (never nil).
	close func()
	// http is the OpenAI client (for /v1/models and /tokenize); nil for
	// SageMaker.
	http *openai.Client
	// modelID names the model in reports and file names; requestModel is
	// the body's "model" ("" = omit, SageMaker without a model name).
	modelID, requestModel string
	// connLimit is the backend's cap on open connections (0 = none):
	// bench.Plan.ConnLimit, for the self-check.
	connLimit int
}

// chatPath is the chat completions path a chat endpoint gets when the
// completions path was nobody's choice.
const chatPath = "/v1/chat/completions"

// newEndpoint builds the backend spec names.
func newEndpoint(ctx context.Context, spec *bench.Spec, notes io.Writer) (*endpoint, error) {
	if spec.Endpoint.Kind == bench.SageMaker {
		return newSageMakerEndpoint(ctx, &spec.Endpoint)
	}
	return newOpenAIEndpoint(ctx, spec, notes)
}

// SageMaker checks cfg, resolves region and credentials (failing within
// seconds when there are none) and returns the SageMaker backend. A bad
// setting and a missing region are *InputError; missing credentials are a
// plain error whose message says what to set.
func SageMaker(ctx context.Context, cfg sagemaker.Config) (*sagemaker.Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, &InputError{Err: err}
	}
	b, err := sagemaker.New(ctx, cfg)
	if err != nil {
		if errors.Is(err, sagemaker.ErrNoRegion) {
			return nil, &InputError{Err: err}
		}
		return nil, err
	}
	return b, nil
}

func newSageMakerEndpoint(ctx context.Context, e *bench.Endpoint) (*endpoint, error) {
	cfg := e.SageMaker
	cfg.MaxResponseBytes = e.MaxResponseBytes
	b, err := SageMaker(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The container serves whatever model it loaded: the body names one
	// only when the user did (a wrong name is a 404 from vLLM). The
	// endpoint name stands in for the model in reports and file names.
	ep := &endpoint{kind: bench.SageMaker, be: b, close: func() {}, modelID: e.Model, requestModel: e.ServedModelName}
	if ep.requestModel == "" {
		ep.requestModel = e.Model
	}
	if ep.modelID == "" {
		ep.modelID = cfg.EndpointName
	}
	return ep, nil
}

// apiPath is the endpoint's path, except that a chat endpoint with the
// default completions path gets the chat path: vLLM would abort there,
// and nobody means completions when they ask for chat.
func apiPath(e *bench.Endpoint, notes io.Writer) string {
	p := APIPath(e)
	if p != e.Path {
		fmt.Fprintln(notes, "Note: --backend openai-chat without --endpoint: using "+chatPath+".")
	}
	return p
}

// APIPath is the path the requests of e go to (apiPath's rule, without
// its note): what a hint about a failing endpoint must name.
func APIPath(e *bench.Endpoint) string {
	if e.Kind == bench.OpenAIChat && !e.PathGiven && e.Path == "/v1/completions" {
		return chatPath
	}
	return e.Path
}

func newOpenAIEndpoint(ctx context.Context, spec *bench.Spec, notes io.Writer) (*endpoint, error) {
	e := &spec.Endpoint
	api := openai.Completions
	if e.Kind == bench.OpenAIChat {
		api = openai.Chat
	}
	apiURL := e.BaseURL + apiPath(e, notes)
	if err := openai.CheckURL(api, apiURL); err != nil {
		return nil, &InputError{Err: err}
	}
	c, err := openai.New(openai.Config{
		URL:              apiURL,
		API:              api,
		APIKey:           e.APIKey,
		Headers:          e.Headers,
		Logprobs:         e.Logprobs,
		MaxConcurrency:   spec.Load.MaxConcurrency,
		Timeout:          spec.RequestTimeout,
		Insecure:         e.Insecure,
		MaxResponseBytes: e.MaxResponseBytes,
	})
	if err != nil {
		return nil, &InputError{Err: err}
	}
	ep := &endpoint{kind: e.Kind, be: c, close: c.Close, http: c, modelID: e.Model, connLimit: spec.Load.MaxConcurrency}
	served := e.ServedModelName
	if ep.modelID == "" {
		m, err := modelFromServer(ctx, e, c, notes)
		if err != nil {
			c.Close()
			return nil, err
		}
		ep.modelID = m.ID
		if m.Root != "" {
			ep.modelID = m.Root
		}
		if served == "" {
			served = m.ID
		}
	}
	ep.requestModel = served
	if ep.requestModel == "" {
		ep.requestModel = ep.modelID
	}
	return ep, nil
}

// modelFromServer asks /v1/models for the model when the spec names none,
// as vLLM does, and says which it took (a server serving several would
// otherwise be measured on one nobody named).
func modelFromServer(ctx context.Context, e *bench.Endpoint, c *openai.Client, notes io.Writer) (openai.Model, error) {
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	models, err := openai.ListModels(mctx, c.HTTPClient(), e.BaseURL, e.APIKey)
	if err != nil {
		// err names the URL; ListModels fails on an empty list too.
		return openai.Model{}, fmt.Errorf("no --model given, and the server's model list could not be read: %w", err)
	}
	others := ""
	if len(models) > 1 {
		others = fmt.Sprintf(", the first of %d it lists", len(models))
	}
	fmt.Fprintf(notes, "Model: %s (from the server's /v1/models%s; --model chooses)\n", models[0].ID, others)
	return models[0], nil
}
