package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// planConversations plans a --multi-turn run: conversations replayed
// turn by turn with their history (bench.Conversation).
func (o *runOptions) planConversations(ctx context.Context, env *Env, ep *endpoint, tok *tokenizer.Tokenizer, tokID string, errw io.Writer) (*bench.Plan, error) {
	f := &o.f
	if ep.kind != bench.OpenAIChat {
		return nil, usageErrorf("--multi-turn sends each turn with its history as chat messages: use --backend openai-chat")
	}
	think, err := load.ParseThink(f.turnThinkTime)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--turn-think-time: %w", err)}
	}
	dcfg, err := o.datasetConfig(env)
	if err != nil {
		return nil, err
	}
	var dtok dataset.Tokenizer
	if tok != nil {
		dtok = tok
	}
	convs, warns, err := dataset.LoadConversations(ctx, dcfg, dtok)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	for _, w := range warns {
		fmt.Fprintln(errw, "Warning:", w)
	}
	extra, err := o.extraBody()
	if err != nil {
		return nil, err
	}
	prefix := o.requestIDPrefix()
	plan := &bench.Plan{
		Kind: ep.kind, Backend: ep.be, IDPrefix: prefix, TurnThink: think,
		Load:       bench.Load{Arrivals: o.arrivals(), MaxConcurrency: o.maxConcurrencyOrZero()},
		NumWarmups: f.numWarmups, RequestTimeout: f.requestTimeout,
		ReadyCheck: time.Duration(f.readyCheckSec * float64(time.Second)),
		Tokenizer:  tok, Params: o.recordParams(ep.modelID, tok != nil, tokID),
	}
	turns := 0
	for i, c := range convs {
		rc := bench.Conversation{}
		for k, t := range c.Turns {
			rc.Turns = append(rc.Turns, backend.Request{
				ID:    prefix + "c" + strconv.Itoa(i) + "-t" + strconv.Itoa(k),
				Model: ep.requestModel, Prompt: t.Prompt, PromptLen: t.PromptLen, MaxTokens: t.OutputLen,
				IgnoreEOS: f.ignoreEOS, ExtraBody: extra,
			})
		}
		turns += len(rc.Turns)
		plan.Conversations = append(plan.Conversations, rc)
		plan.Requests = append(plan.Requests, rc.Turns[0]) // the warm-ups send first turns
	}
	plan.Params.NumPrompts = &turns // what is sent: every turn
	return plan, nil
}
