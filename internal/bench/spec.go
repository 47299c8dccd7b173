package bench

import (
	"time"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// Spec describes one run, every setting parsed and checked once: the
// command line turns its flags (and config layers) into a Spec, and
// prepare.Build turns the Spec into a Plan, asking the server and the
// dataset what the Spec cannot know (the model a server serves, the
// prompts, the tokenizer's counts). Nothing in a Spec is a flag: it has
// no pflag value, no "was it set" bit, no text still to parse.
type Spec struct {
	// Endpoint is the server or SageMaker endpoint and how to reach it.
	Endpoint Endpoint
	// Dataset is the dataset's configuration; Build adds the hub client.
	Dataset dataset.Config
	// Tokenizer is which tokenizer counts the prompts.
	Tokenizer TokenizerChoice
	// Load is the arrival process (built once), the concurrency cap, the
	// time bound and the closed loop's users.
	Load Load
	// Request are the per-request body options.
	Request RequestOptions
	// MultiTurn replays conversations turn by turn (--multi-turn), with
	// TurnThink between an answer and the next turn.
	MultiTurn bool
	TurnThink load.Think
	// NumWarmups, RequestTimeout, ReadyCheck and Preconnect are Plan's.
	NumWarmups     int
	RequestTimeout time.Duration
	ReadyCheck     time.Duration
	Preconnect     bool
	// IDPrefix starts every request id (--request-id-prefix, or vLLM's
	// random "bench-XXXXXXXX-", drawn once).
	IDPrefix string
	// StrictTokens fails the run when the server's /tokenize counts
	// differ from the tokenizer's.
	StrictTokens bool
	// Params describe the run for the result as far as the settings know
	// it; Build adds the model id and the tokenizer's name.
	Params record.Params
}

// Endpoint is where the requests go.
type Endpoint struct {
	// Kind is the request format (ParseKind of vLLM's --backend).
	Kind Kind
	// BaseURL is the HTTP server's base URL without a trailing "/".
	BaseURL string
	// Path is the API path appended to BaseURL; PathGiven says the user
	// chose it. A chat endpoint with the completions path nobody chose
	// gets the chat path (Build notes it).
	Path      string
	PathGiven bool
	// Model names the model in reports ("" = ask the server's
	// /v1/models, or the SageMaker endpoint's name); ServedModelName is
	// the body's "model" ("" = Model).
	Model           string
	ServedModelName string
	// Headers go on every request; APIKey is sent as a Bearer token
	// ("" = none). Both reach /v1/models and /tokenize too.
	Headers []openai.Header
	APIKey  openai.Secret
	// Insecure skips TLS certificate verification.
	Insecure bool
	// Logprobs is sent in completions requests (nil = null).
	Logprobs *int
	// MaxResponseBytes caps one response in memory (0 = the backend's
	// default).
	MaxResponseBytes int
	// SageMaker configures a Kind SageMaker endpoint (Build validates
	// it).
	SageMaker sagemaker.Config
}

// TokenizerChoice is which tokenizer counts tokens.
type TokenizerChoice struct {
	// Name is a tokenizer.json file, a folder, a Hugging Face id or a
	// built-in name; "" = the model's (or the one the server names).
	Name string
	// Revision is the Hugging Face revision ("" = main).
	Revision string
	// Mode is vLLM's --tokenizer-mode; only "auto" and "hf" are what
	// llmbench does (another gets a warning).
	Mode string
	// Skip uses no tokenizer at all (--skip-tokenizer-init).
	Skip bool
}

// RequestOptions shape every request's body.
type RequestOptions struct {
	// ExtraBody is merged into every body (the sampling settings and
	// --extra-body, parsed once); nil = nothing.
	ExtraBody map[string]any
	// IgnoreEOS sends "ignore_eos": true (forced for the random and
	// timed_trace datasets on OpenAI-compatible endpoints, as in vLLM).
	IgnoreEOS bool
	// LoRAModules, when set, name each request's model in turn.
	LoRAModules []string
}

// OpenAICompatible reports whether the requests go to an OpenAI-compatible
// server (vLLM's rule for forcing ignore_eos), including SageMaker
// containers that speak the OpenAI API.
func (e *Endpoint) OpenAICompatible() bool {
	if e.Kind != SageMaker {
		return true
	}
	f := e.SageMaker.Format
	return f == sagemaker.FormatOpenAIChat || f == sagemaker.FormatOpenAI
}
