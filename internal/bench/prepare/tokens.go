package prepare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// alignPrompts compares the tokenizer's counts with the server's /tokenize
// and, for generated prompts, re-aligns them to the server's tokenizer as
// vLLM does. Only for OpenAI-compatible HTTP servers, with a tokenizer.
func alignPrompts(ctx context.Context, spec *bench.Spec, ep *endpoint, tok *tokenizer.Tokenizer, samples []dataset.Request, notes io.Writer) ([]dataset.Request, error) {
	if ep.http == nil || tok == nil {
		return samples, nil
	}
	// The same credentials and headers as the benchmark's requests.
	hdr := http.Header{}
	if key := spec.Endpoint.APIKey; key != "" {
		hdr.Set("Authorization", "Bearer "+string(key))
	}
	for _, h := range spec.Endpoint.Headers {
		hdr.Set(h.Key, h.Value)
	}
	tc := &openai.TokenizeClient{BaseURL: spec.Endpoint.BaseURL, Model: ep.requestModel, Client: ep.http.HTTPClient(), Header: hdr}
	// Compare counts first: vLLM's alignment below silently fixes the
	// random prompts, but the user should know the tokenizers differ.
	twarn, silent, err := checkServerTokens(ctx, tc, tok, samples, spec.StrictTokens)
	if err != nil {
		return nil, err
	}
	for _, w := range twarn {
		fmt.Fprintln(notes, "Warning:", w)
	}
	if name := spec.Dataset.Name; silent || (name != dataset.Random && name != dataset.PrefixRepetition) {
		return samples, nil
	}
	aligned, awarn, err := dataset.AlignToServer(ctx, tc, samples)
	if err != nil {
		return nil, err
	}
	for _, w := range awarn {
		// The count check above already said the tokenizers differ.
		if len(twarn) > 0 && strings.HasPrefix(w, "tokenizer mismatch") {
			continue
		}
		fmt.Fprintln(notes, "Warning:", w)
	}
	return aligned, nil
}

// tokenCheckSample is how many prompts the server's /tokenize is asked
// about: enough to catch a different tokenizer, cheap on any server.
const tokenCheckSample = 8

// tokenCheckTimeout bounds the whole token-count check: a healthy server
// answers a few /tokenize calls in milliseconds, and one that does not
// answer (stalled, or its accept queue full) must not hold the run's start
// back for long, whatever the request timeout says.
const tokenCheckTimeout = 5 * time.Second

// checkServerTokens compares the server's token counts (POST /tokenize, as
// vLLM serves it) with ours on a sample of prompts, so a benchmark run with
// the wrong tokenizer says so before it reports token figures. It returns
// warnings; with strict, a mismatch is an error. A server without /tokenize
// gives one note and no error: most non-vLLM servers have none. silent
// reports a /tokenize that gave no answer within tokenCheckTimeout: the
// caller asks it nothing more (the warning says so).
func checkServerTokens(ctx context.Context, c dataset.TokenizeClient, tok *tokenizer.Tokenizer, samples []dataset.Request, strict bool) (warns []string, silent bool, err error) {
	if tok == nil || len(samples) == 0 {
		return nil, false, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, tokenCheckTimeout)
	defer cancel()
	step := max(1, len(samples)/tokenCheckSample)
	var checked, differ int
	var example string
	for i := 0; i < len(samples) && checked < tokenCheckSample; i += step {
		p := samples[i].Prompt
		if p == "" {
			continue // prebuilt chat messages: the server's count includes its template
		}
		ids, err := c.Tokenize(ctx, p)
		if err != nil {
			if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return []string{fmt.Sprintf("/tokenize gave no complete answer within %v: token counts not compared with the server's, prompts not aligned to its tokenizer", tokenCheckTimeout)}, true, nil
			}
			if checked == 0 {
				return []string{fmt.Sprintf("could not compare token counts with the server (/tokenize: %v)", oneLine(err.Error()))}, false, nil
			}
			break
		}
		checked++
		if ours := tok.CountTokens(p); ours != len(ids) {
			differ++
			if example == "" {
				example = fmt.Sprintf("prompt %d: server %d tokens, ours %d", i, len(ids), ours)
			}
		}
	}
	if differ == 0 {
		return nil, false, nil
	}
	msg := fmt.Sprintf("tokenizer mismatch: the server counts differently for %d of %d sampled prompts (%s); token figures use the server's usage counts where it sends them, but prompt lengths are ours — pass the server's model as --tokenizer",
		differ, checked, example)
	if strict {
		return nil, false, fmt.Errorf("--strict-tokens: %s", strings.TrimPrefix(msg, "tokenizer mismatch: "))
	}
	return []string{msg}, false, nil
}
