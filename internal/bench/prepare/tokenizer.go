package prepare

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// counted is the tokenizer a plan counts with: nil (and id "") when none
// could be had or none was wanted.
type counted struct {
	tok *tokenizer.Tokenizer
	id  string
}

// loadTokenizer resolves the tokenizer the way vLLM does (the spec's,
// else the model's). An explicit tokenizer that fails is an error; the
// model's own that cannot be had gives none and a note: the run goes on
// with the server's usage counts. A server that names its tokenizer in
// /v1/models (llmbench sim does) is taken at its word first.
func loadTokenizer(ctx context.Context, spec *bench.Spec, deps Deps, ep *endpoint) (counted, error) {
	tc := &spec.Tokenizer
	if tc.Skip {
		return counted{}, nil
	}
	name := tc.Name
	explicit := name != ""
	if !explicit {
		hinted, hintNote := serverTokenizer(ctx, &spec.Endpoint, ep)
		if hintNote != "" {
			fmt.Fprintln(deps.Notes, hintNote)
			return counted{}, nil
		}
		name = cmp.Or(hinted, ep.modelID)
	}
	if name == "" {
		fmt.Fprintln(deps.Notes, "Note: no tokenizer (no --tokenizer and no model id).")
		return counted{}, nil
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tok, err := tokenizer.Load(tctx, name, tokenizer.Options{Revision: tc.Revision, Hub: deps.Hub})
	if err != nil {
		if explicit {
			return counted{}, tokenizerError(fmt.Errorf("--tokenizer %s: %w%s", name, err, offlineHint(err)))
		}
		fmt.Fprintf(deps.Notes, "Note: no tokenizer for model %q (%s); pass --tokenizer to count tokens exactly (a tokenizer.json, a folder, a Hugging Face id, or builtin:gpt2).\n", name, tokenizerFailure(err))
		return counted{}, nil
	}
	if !explicit && name != ep.modelID {
		fmt.Fprintf(deps.Notes, "Note: counting tokens with %s, the tokenizer the server names in /v1/models.\n", name)
	}
	return counted{tok: tok, id: tok.ID()}, nil
}

// serverTokenizer asks an HTTP server's /v1/models which tokenizer it
// counts with (the llmbench_tokenizer field llmbench sim sends; vLLM sends
// none). "words" means it counts one token per word, which no tokenizer
// file reproduces: then a short note replaces the hub look-up.
func serverTokenizer(ctx context.Context, e *bench.Endpoint, ep *endpoint) (name, note string) {
	if ep.http == nil {
		return "", ""
	}
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	models, err := openai.ListModels(mctx, ep.http.HTTPClient(), e.BaseURL, e.APIKey)
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

// tokenizerError makes a tokenizer that cannot work (no such file or hub
// repository, a broken or unsupported tokenizer.json) an input error; a
// network failure stays a plain error.
func tokenizerError(err error) error {
	if errors.Is(err, tokenizer.ErrInvalid) {
		return &InputError{Err: err}
	}
	return err
}

// unreachable is tokenizerFailure's words for a hub out of reach.
const unreachable = "not in the Hugging Face cache, and the hub could not be reached"

// tokenizerFailure says in a few words why a tokenizer could not be had.
func tokenizerFailure(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "dial tcp"), strings.Contains(msg, "connection refused"),
		strings.Contains(msg, "i/o timeout"), errors.Is(err, context.DeadlineExceeded):
		return unreachable
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
	if tokenizerFailure(err) == unreachable {
		return " (offline? --tokenizer builtin:gpt2 is GPT-2's tokenizer built into llmbench; a tokenizer.json path works too)"
	}
	return ""
}

// oneLine folds a multi-line error into one line so a shell user sees it
// whole.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// params are the spec's result parameters with what Build found: the
// model id and the tokenizer.
func params(spec *bench.Spec, modelID string, tok counted) record.Params {
	p := spec.Params
	p.ModelID = modelID
	switch {
	case spec.Tokenizer.Skip:
		p.Tokenizer = record.TokenizerNone
	case tok.tok != nil:
		p.Tokenizer = tok.id
	default:
		// No tokenizer could be had: vLLM would fail here; we go on with the
		// server's counts and say so (tokenizer_id names what we did).
		p.Tokenizer = "approximate"
		p.TokenizerID = "none (server usage counts; approximate prompt lengths)"
	}
	return p
}
