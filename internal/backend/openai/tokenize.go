package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/redact"
)

// TokenizeClient talks to vLLM's POST /tokenize and /detokenize (it
// satisfies dataset.TokenizeClient, which aligns prompts with the server's
// tokenizer, and the run's token-count check).
type TokenizeClient struct {
	// BaseURL is the server's base URL (no trailing path), e.g.
	// http://127.0.0.1:8000.
	BaseURL string
	// Model goes in the body's "model" field.
	Model string
	// Client sends the requests; nil means a short-lived client of its own
	// (NewTransport's shape).
	Client *http.Client
	// Header is added to every request (e.g. --header values).
	Header http.Header
	// Timeout bounds each call, from connecting to the end of the answer,
	// whatever the context allows; 0 means DefaultSideCallTimeout. A
	// server that accepts the connection and never answers fails the call
	// after this long instead of hanging the run.
	Timeout time.Duration
}

// DefaultSideCallTimeout bounds each call made beside the benchmark's own
// requests (/tokenize, /detokenize, /v1/models) when no other deadline is
// configured: those answers take milliseconds on a healthy server.
const DefaultSideCallTimeout = 30 * time.Second

// maxTokenizeResponse bounds a /tokenize or /detokenize response body.
const maxTokenizeResponse = 64 << 20

// post sends body to path and decodes the answer into into, within
// h.Timeout. Errors wrap the context's error when the context ended the
// call (errors.Is(err, context.Canceled) after a Ctrl-C).
func (h *TokenizeClient) post(ctx context.Context, path string, body, into any) error {
	err := h.do(ctx, path, body, into)
	if err != nil {
		// Nothing of the answer goes into these messages today; the
		// header values are kept out of them all the same.
		var vals []string
		for _, vs := range h.Header {
			vals = append(vals, vs...)
		}
		err = redact.New(vals...).Error(err)
	}
	return err
}

func (h *TokenizeClient) do(ctx context.Context, path string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultSideCallTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout,
		fmt.Errorf("POST %s: no complete answer within %v: %w", path, timeout, context.DeadlineExceeded))
	defer cancel()
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
		hc = &http.Client{Transport: NewTransport(1, false)}
		defer hc.CloseIdleConnections()
	}
	resp, err := hc.Do(req)
	if err != nil {
		return sideCallError(ctx, "POST "+path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenizeResponse))
	if err != nil {
		return sideCallError(ctx, "POST "+path, err)
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
func (h *TokenizeClient) Tokenize(ctx context.Context, prompt string) ([]int, error) {
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
func (h *TokenizeClient) Detokenize(ctx context.Context, tokens []int) (string, error) {
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

// sideCallError says why a side call failed (doing names it): when its
// context ended it, the deadline's cause or context.Canceled, so that
// errors.Is finds context.Canceled or context.DeadlineExceeded.
func sideCallError(ctx context.Context, doing string, err error) error {
	switch {
	case ctx.Err() == nil:
		return fmt.Errorf("%s: %w", doing, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		if cause := context.Cause(ctx); cause != context.DeadlineExceeded {
			return cause
		}
		return fmt.Errorf("%s: %w", doing, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w", doing, context.Canceled)
}
