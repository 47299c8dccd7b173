package dataset

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// TokenizeClient reaches a server's tokenizer: vLLM's POST {base}/tokenize
// and POST {base}/detokenize.
type TokenizeClient interface {
	// Tokenize returns the server's token ids of prompt, without special
	// tokens.
	Tokenize(ctx context.Context, prompt string) ([]int, error)
	// Detokenize returns the server's text for tokens.
	Detokenize(ctx context.Context, tokens []int) (string, error)
}

// alignConcurrency is vLLM's semaphore size for alignment requests.
const alignConcurrency = 64

// AlignToServer re-aligns prompts with the server's tokenizer the way vllm
// bench serve does for the random and prefix_repetition datasets: it
// tokenizes the first prompt on the server; if the count equals that
// prompt's PromptLen nothing changes. Otherwise every prompt the server
// tokenizes longer than its PromptLen is cut to PromptLen server tokens and
// replaced by the server's detokenized text. A failing first /tokenize skips
// alignment with a warning; a failure on one prompt keeps that prompt as it
// was. reqs is not modified; the result is a new slice.
func AlignToServer(ctx context.Context, c TokenizeClient, reqs []Request) ([]Request, []string, error) {
	out := append([]Request(nil), reqs...)
	if len(reqs) == 0 {
		return out, nil, nil
	}
	first, err := c.Tokenize(ctx, reqs[0].Prompt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return out, []string{fmt.Sprintf("/tokenize unavailable, skipping prompt alignment with the server tokenizer (%v)", err)}, nil
	}
	if len(first) == reqs[0].PromptLen {
		return out, nil, nil
	}
	warnings := []string{fmt.Sprintf("tokenizer mismatch (server=%d, expected=%d), re-aligning prompts with the server tokenizer", len(first), reqs[0].PromptLen)}
	var (
		wg     sync.WaitGroup
		sem    = make(chan struct{}, alignConcurrency)
		mu     sync.Mutex
		failed int
		// A server that stopped answering in time is not asked again:
		// each call would wait out its whole deadline.
		stalled atomic.Bool
	)
	for i := range out {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := &out[i]
			if stalled.Load() {
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			toks, err := c.Tokenize(ctx, r.Prompt)
			if err == nil && len(toks) > r.PromptLen {
				var text string
				if text, err = c.Detokenize(ctx, toks[:r.PromptLen]); err == nil {
					r.Prompt = text
				}
			}
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					stalled.Store(true)
				}
				mu.Lock()
				failed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, warnings, ctx.Err()
	}
	if failed > 0 {
		why := ""
		if stalled.Load() {
			why = " (the server stopped answering /tokenize or /detokenize in time, so the rest were not tried)"
		}
		warnings = append(warnings, fmt.Sprintf("prompt alignment failed for %d of %d prompts; those were sent unaligned%s", failed, len(out), why))
	}
	return out, warnings, nil
}
