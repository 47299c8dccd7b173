package prepare

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// datasetConfig is the spec's dataset with the environment's hub, checked.
func datasetConfig(spec *bench.Spec, deps Deps) (dataset.Config, error) {
	c := spec.Dataset
	c.Hub = deps.Hub
	if err := c.Validate(); err != nil {
		return c, &InputError{Err: err}
	}
	return c, nil
}

// datasetTokenizer is tok as the dataset's counter: a nil interface, not a
// nil pointer in one, when there is none.
func datasetTokenizer(tok *tokenizer.Tokenizer) dataset.Tokenizer {
	if tok == nil {
		return nil
	}
	return tok
}

// loadSamples loads the dataset's prompts.
func loadSamples(ctx context.Context, spec *bench.Spec, deps Deps, tok *tokenizer.Tokenizer) ([]dataset.Request, error) {
	dcfg, err := datasetConfig(spec, deps)
	if err != nil {
		return nil, err
	}
	samples, warns, err := dataset.Load(ctx, dcfg, datasetTokenizer(tok))
	if err != nil {
		return nil, &InputError{Err: err}
	}
	printWarnings(deps.Notes, warns)
	return samples, nil
}

func printWarnings(w io.Writer, warns []string) {
	for _, s := range warns {
		fmt.Fprintln(w, "Warning:", s)
	}
}

// buildRequests turns samples into backend requests with vLLM's request
// ids, model names (LoRA round-robin), ignore_eos rule and extra body.
func buildRequests(spec *bench.Spec, samples []dataset.Request, model string) []backend.Request {
	ro := &spec.Request
	// vLLM forces ignore_eos for the random dataset on OpenAI-compatible
	// backends so outputs run to max_tokens.
	ignoreEOS := ro.IgnoreEOS
	if name := spec.Dataset.Name; (name == dataset.Random || name == dataset.TimedTrace) && spec.Endpoint.OpenAICompatible() {
		ignoreEOS = true
	}
	reqs := make([]backend.Request, len(samples))
	for i, s := range samples {
		m := model
		if len(ro.LoRAModules) > 0 {
			m = ro.LoRAModules[i%len(ro.LoRAModules)]
		}
		reqs[i] = backend.Request{
			Index:     i,
			ID:        spec.IDPrefix + strconv.Itoa(i),
			Model:     m,
			Prompt:    s.Prompt,
			PromptIDs: s.PromptIDs,
			Messages:  s.Messages,
			PromptLen: s.PromptLen,
			MaxTokens: s.OutputLen,
			IgnoreEOS: ignoreEOS,
			ExtraBody: ro.ExtraBody,
		}
	}
	return reqs
}

// planConversations plans a multi-turn run: conversations replayed turn
// by turn with their history (bench.Conversation).
func planConversations(ctx context.Context, spec *bench.Spec, deps Deps, ep *endpoint, tok counted) (*bench.Plan, error) {
	if ep.kind != bench.OpenAIChat {
		return nil, inputErrorf("--multi-turn sends each turn with its history as chat messages: use --backend openai-chat")
	}
	dcfg, err := datasetConfig(spec, deps)
	if err != nil {
		return nil, err
	}
	convs, warns, err := dataset.LoadConversations(ctx, dcfg, datasetTokenizer(tok.tok))
	if err != nil {
		return nil, &InputError{Err: err}
	}
	printWarnings(deps.Notes, warns)
	prefix := spec.IDPrefix
	plan := &bench.Plan{
		Kind: ep.kind, Backend: ep.be, IDPrefix: prefix, TurnThink: spec.TurnThink,
		Load:       bench.Load{Arrivals: spec.Load.Arrivals, MaxConcurrency: spec.Load.MaxConcurrency},
		NumWarmups: spec.NumWarmups, RequestTimeout: spec.RequestTimeout,
		ReadyCheck: spec.ReadyCheck,
		Tokenizer:  tok.tok, Params: params(spec, ep.modelID, tok),
	}
	turns := 0
	for i, c := range convs {
		rc := bench.Conversation{}
		for k, t := range c.Turns {
			rc.Turns = append(rc.Turns, backend.Request{
				ID:    prefix + "c" + strconv.Itoa(i) + "-t" + strconv.Itoa(k),
				Model: ep.requestModel, Prompt: t.Prompt, PromptLen: t.PromptLen, MaxTokens: t.OutputLen,
				IgnoreEOS: spec.Request.IgnoreEOS, ExtraBody: spec.Request.ExtraBody,
			})
		}
		turns += len(rc.Turns)
		plan.Conversations = append(plan.Conversations, rc)
		plan.Requests = append(plan.Requests, rc.Turns[0]) // the warm-ups send first turns
	}
	plan.Params.NumPrompts = &turns // what is sent: every turn
	return plan, nil
}
