package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
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
	)
	for i := range out {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := &out[i]
			toks, err := c.Tokenize(ctx, r.Prompt)
			if err == nil && len(toks) > r.PromptLen {
				var text string
				if text, err = c.Detokenize(ctx, toks[:r.PromptLen]); err == nil {
					r.Prompt = text
				}
			}
			if err != nil {
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
		warnings = append(warnings, fmt.Sprintf("prompt alignment failed for %d of %d prompts; those were sent unaligned", failed, len(out)))
	}
	return out, warnings, nil
}

// HTTPTokenizeClient is a TokenizeClient for vLLM's /tokenize and
// /detokenize endpoints.
type HTTPTokenizeClient struct {
	// BaseURL is the server's base URL (no trailing path), e.g.
	// http://127.0.0.1:8000.
	BaseURL string
	// Model goes in the body's "model" field.
	Model string
	// Client sends the requests; nil means a client without timeout, so
	// bound calls with the context.
	Client *http.Client
	// Header is added to every request (e.g. --header values).
	Header http.Header
}

// maxTokenizeResponse bounds a /tokenize or /detokenize response body.
const maxTokenizeResponse = 64 << 20

func (h *HTTPTokenizeClient) post(ctx context.Context, path string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	url := strings.TrimRight(h.BaseURL, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range h.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	hc := h.Client
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenizeResponse))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s", path, resp.Status)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("POST %s: bad JSON response: %v", path, err)
	}
	return nil
}

// Tokenize posts {"model", "prompt", "add_special_tokens": false} and reads
// "tokens".
func (h *HTTPTokenizeClient) Tokenize(ctx context.Context, prompt string) ([]int, error) {
	var r struct {
		Tokens *[]int `json:"tokens"`
	}
	err := h.post(ctx, "/tokenize", map[string]any{"model": h.Model, "prompt": prompt, "add_special_tokens": false}, &r)
	if err != nil {
		return nil, err
	}
	if r.Tokens == nil {
		return nil, fmt.Errorf("POST /tokenize: response has no \"tokens\"")
	}
	return *r.Tokens, nil
}

// Detokenize posts {"model", "tokens"} and reads "prompt".
func (h *HTTPTokenizeClient) Detokenize(ctx context.Context, tokens []int) (string, error) {
	var r struct {
		Prompt *string `json:"prompt"`
	}
	if err := h.post(ctx, "/detokenize", map[string]any{"model": h.Model, "tokens": tokens}, &r); err != nil {
		return "", err
	}
	if r.Prompt == nil {
		return "", fmt.Errorf("POST /detokenize: response has no \"prompt\"")
	}
	return *r.Prompt, nil
}
