// Package prepare turns a bench.Spec into a bench.Plan: it builds the
// backend, asks an HTTP server which model it serves when the Spec names
// none, resolves the tokenizer, loads the dataset, compares token counts
// with the server's /tokenize (and aligns generated prompts to it, as vLLM
// does), and builds the requests or conversations. When the first
// requests of a step all failed alike, EndpointHint says what to check,
// asking the same server's /v1/models after a 404 (hint.go).
//
// It is a package of its own, beside bench, because it changes for other
// reasons than the step does: bench runs a Plan (dispatch, warm-ups,
// records) and knows no server API, dataset or tokenizer hub; prepare
// talks to all of them once, before anything is timed, and never runs a
// step. It knows nothing of flags either: every setting comes in the Spec,
// every resolved value goes out in the Plan (no setting is written back).
// What the command line prints of its work goes to Deps.Notes, in the
// order it happens.
package prepare

import (
	"context"
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/hfhub"
)

// Deps is what the environment gives Build.
type Deps struct {
	// Notes receives the notes and warnings ("Model: ...", "Warning:
	// ..."), one line each, in the order they arise.
	Notes io.Writer
	// Hub finds tokenizers and hf datasets in the Hugging Face cache and
	// downloads them (its offline setting and token included).
	Hub *hfhub.Client
}

// InputError is a failure of the run's input rather than of the
// environment: a dataset or tokenizer that cannot work, a setting the
// endpoint refuses. The command line exits 2 for it (a usage error).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, a ...any) error {
	return &InputError{Err: fmt.Errorf(format, a...)}
}

// Build makes the step's plan from spec. close releases the backend's
// connections (never nil when err is nil).
func Build(ctx context.Context, spec bench.Spec, deps Deps) (plan *bench.Plan, close func(), err error) {
	ep, err := newEndpoint(ctx, &spec, deps.Notes)
	if err != nil {
		return nil, nil, err
	}
	if plan, err = build(ctx, &spec, deps, ep); err != nil {
		ep.close()
		return nil, nil, err
	}
	return plan, ep.close, nil
}

func build(ctx context.Context, spec *bench.Spec, deps Deps, ep *endpoint) (*bench.Plan, error) {
	if m := spec.Tokenizer.Mode; m != "auto" && m != "hf" && !spec.Tokenizer.Skip {
		fmt.Fprintf(deps.Notes, "Warning: --tokenizer-mode %s is not supported: tokens are counted with the Hugging Face tokenizer.json, which may count differently\n", m)
	}
	tok, err := loadTokenizer(ctx, spec, deps, ep)
	if err != nil {
		return nil, err
	}
	if spec.MultiTurn {
		return planConversations(ctx, spec, deps, ep, tok)
	}
	samples, err := loadSamples(ctx, spec, deps, tok.tok)
	if err != nil {
		return nil, err
	}
	if ep.http != nil && spec.ReadyCheck == 0 {
		// Without a ready check nobody waits for the server: a refused
		// connection now would only fail every request later (and first
		// muddle the /tokenize comparison).
		if err := probeServer(ctx, spec.Endpoint.BaseURL); err != nil {
			return nil, err
		}
	}
	if samples, err = alignPrompts(ctx, spec, ep, tok.tok, samples, deps.Notes); err != nil {
		return nil, err
	}
	reqs := buildRequests(spec, samples, ep.requestModel)
	sched, selfTimed := dataset.TraceSchedule(samples)
	if selfTimed {
		// vLLM's words: the trace's timestamps replace the arrival process.
		fmt.Fprintln(deps.Notes, "Self timing is set, using the timestamps from the trace file.")
	}
	return &bench.Plan{
		Schedule:       sched,
		Kind:           ep.kind,
		Backend:        ep.be,
		Requests:       reqs,
		IDPrefix:       spec.IDPrefix,
		Load:           spec.Load,
		AbortAfter:     abortAfter(len(reqs)),
		NumWarmups:     spec.NumWarmups,
		RequestTimeout: spec.RequestTimeout,
		ReadyCheck:     spec.ReadyCheck,
		Tokenizer:      tok.tok,
		Params:         params(spec, ep.modelID, tok),
		Preconnect:     spec.Preconnect,
		ConnLimit:      ep.connLimit,
	}, nil
}

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
