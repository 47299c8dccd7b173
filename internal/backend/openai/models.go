package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/llmbench/llmbench/internal/redact"
)

// Model is one entry of GET /v1/models.
type Model struct {
	// ID is the served model name (what requests put in "model").
	ID string `json:"id"`
	// Root is the underlying model (vLLM uses it as model_id: tokenizer,
	// result file name); "" when the server does not say.
	Root string `json:"root"`
	// Tokenizer is the tokenizer the server counts with, when it says
	// (llmbench sim's "llmbench_tokenizer": a tokenizer id, or "words");
	// "" for vLLM and other servers.
	Tokenizer string `json:"llmbench_tokenizer"`
}

// ListModels fetches {baseURL}/v1/models with client (nil: a short-lived
// default transport) and the given API key (may be empty). vLLM takes the
// first entry: data[0].id as the request model name and data[0].root as
// model_id. An empty list is an error. The call ends within
// DefaultSideCallTimeout, or earlier when ctx ends (the error then wraps
// context.Canceled or context.DeadlineExceeded).
func ListModels(ctx context.Context, client *http.Client, baseURL string, apiKey Secret) ([]Model, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, DefaultSideCallTimeout,
		fmt.Errorf("listing models: no complete answer within %v: %w", DefaultSideCallTimeout, context.DeadlineExceeded))
	defer cancel()
	if client == nil {
		client = &http.Client{Transport: NewTransport(1, false)}
		defer client.CloseIdleConnections()
	}
	u := strings.TrimRight(baseURL, "/") + "/v1/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("listing models: %w", err)
	}
	// Errors name the URL, never a password in it (net/http's own errors
	// strip it the same way).
	u = req.URL.Redacted()
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+string(apiKey))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, sideCallError(ctx, "listing models at "+u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The body may echo the request's Authorization header.
		_, e := statusError(resp, redact.New(string(apiKey), req.Header.Get("Authorization")))
		return nil, fmt.Errorf("listing models at %s: %w", u, e)
	}
	var body struct {
		Data []Model `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&body); err != nil {
		if ctx.Err() != nil {
			return nil, sideCallError(ctx, "listing models at "+u, err)
		}
		return nil, fmt.Errorf("listing models at %s: bad JSON: %w", u, err)
	}
	if len(body.Data) == 0 {
		return nil, fmt.Errorf("listing models at %s: the server lists no models", u)
	}
	return body.Data, nil
}
