package prepare

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/load"
)

// modelsServer answers /v1/models with one model (id served, root
// org/model) and counts the Authorization headers it saw.
func modelsServer(t *testing.T, auth *[]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*auth = append(*auth, r.Header.Get("Authorization"))
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"served","object":"model","root":"org/model"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// testSpec is a small random-dataset run against baseURL, without a
// tokenizer (nothing is fetched from the hub).
func testSpec(baseURL string, kind bench.Kind) bench.Spec {
	return bench.Spec{
		Endpoint:       bench.Endpoint{Kind: kind, BaseURL: baseURL, Path: "/v1/completions", APIKey: "sk-test"},
		Dataset:        dataset.Config{Name: dataset.Random, NumPrompts: 3, RandomInputLen: 8, RandomOutputLen: 4, RandomRangeRatio: "0.0"},
		Tokenizer:      bench.TokenizerChoice{Mode: "auto", Skip: true},
		Load:           bench.Load{Arrivals: load.Arrivals{Rate: 5, Burstiness: 1}},
		RequestTimeout: time.Minute,
		IDPrefix:       "p-",
	}
}

// wordsWarning is the random dataset's warning without a tokenizer, after
// the endpoint's notes.
const wordsWarning = "Warning: random dataset without a tokenizer: prompts are built from words and every word is counted as one token, so prompt lengths are approximate\n"

// TestBuildAsksTheServerForTheModel: without a model, Build takes the
// server's first (its root names the model, its id goes in the body),
// says so in one note, asks with the spec's API key, and leaves the spec
// as it was (the model is resolved into the plan, not written back).
func TestBuildAsksTheServerForTheModel(t *testing.T) {
	t.Parallel()
	var auth []string
	srv := modelsServer(t, &auth)
	for _, tc := range []struct {
		kind     bench.Kind
		wantNote string
	}{
		{bench.OpenAICompletions, "Model: served (from the server's /v1/models; --model chooses)\n"},
		{bench.OpenAIChat, "Note: --backend openai-chat without --endpoint: using /v1/chat/completions.\nModel: served (from the server's /v1/models; --model chooses)\n"},
	} {
		spec := testSpec(srv.URL, tc.kind)
		var notes bytes.Buffer
		plan, closeBE, err := Build(t.Context(), spec, Deps{Notes: &notes})
		if err != nil {
			t.Fatal(err)
		}
		closeBE()
		if got := notes.String(); got != tc.wantNote+wordsWarning {
			t.Errorf("kind %v: notes %q, want %q", tc.kind, got, tc.wantNote+wordsWarning)
		}
		if plan.Params.ModelID != "org/model" || len(plan.Requests) != 3 || plan.Requests[0].Model != "served" {
			t.Errorf("kind %v: model id %q, requests %d, request model %q", tc.kind, plan.Params.ModelID, len(plan.Requests), plan.Requests[0].Model)
		}
		if spec.Endpoint.Model != "" || spec.Endpoint.ServedModelName != "" {
			t.Errorf("the spec changed: %+v", spec.Endpoint)
		}
	}
	for _, a := range auth {
		if a != "Bearer sk-test" {
			t.Errorf("Authorization %q, want the spec's key", a)
		}
	}
}

// TestBuildInputErrors: settings the run cannot use are *InputError (the
// command line's exit code 2); a server that is not there is not.
func TestBuildInputErrors(t *testing.T) {
	t.Parallel()
	var auth []string
	srv := modelsServer(t, &auth)
	multi := testSpec(srv.URL, bench.OpenAICompletions)
	multi.Endpoint.Model, multi.MultiTurn = "m", true
	badData := testSpec(srv.URL, bench.OpenAICompletions)
	badData.Endpoint.Model, badData.Dataset.Name = "m", "nope"
	gone := testSpec("http://127.0.0.1:1", bench.OpenAICompletions)
	gone.Endpoint.Model = "m"
	for _, tc := range []struct {
		name  string
		spec  bench.Spec
		want  string
		input bool
	}{
		{"multi-turn completions", multi, "--multi-turn sends each turn with its history as chat messages", true},
		{"unknown dataset", badData, `unknown --dataset-name "nope"`, true},
		{"no server", gone, "cannot connect to http://127.0.0.1:1 (connection refused)", false},
	} {
		_, _, err := Build(t.Context(), tc.spec, Deps{Notes: &bytes.Buffer{}})
		var ie *InputError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ie) != tc.input {
			t.Errorf("%s: err %v (input error %v), want %q (input %v)", tc.name, err, errors.As(err, &ie), tc.want, tc.input)
		}
	}
}

// TestBuildRequests: vLLM's ignore_eos rule (forced for random and
// timed_trace prompts on OpenAI-compatible endpoints only), LoRA names in
// turn, ids from the prefix, one extra body shared by all.
func TestBuildRequests(t *testing.T) {
	t.Parallel()
	extra := map[string]any{"temperature": 0.5}
	samples := []dataset.Request{{Prompt: "a", OutputLen: 1}, {Prompt: "b", OutputLen: 2}, {Prompt: "c", OutputLen: 3}}
	for _, tc := range []struct {
		name    string
		dataset string
		kind    bench.Kind
		format  sagemaker.Format
		lora    []string
		wantEOS bool
		models  []string
	}{
		{"random openai", dataset.Random, bench.OpenAICompletions, "", nil, true, []string{"m", "m", "m"}},
		{"sharegpt openai", dataset.ShareGPT, bench.OpenAIChat, "", nil, false, []string{"m", "m", "m"}},
		{"random sagemaker openai", dataset.Random, bench.SageMaker, sagemaker.FormatOpenAI, nil, true, []string{"m", "m", "m"}},
		{"random sagemaker tgi", dataset.Random, bench.SageMaker, sagemaker.FormatTGI, nil, false, []string{"m", "m", "m"}},
		{"lora", dataset.ShareGPT, bench.OpenAICompletions, "", []string{"x", "y"}, false, []string{"x", "y", "x"}},
	} {
		spec := bench.Spec{
			Endpoint: bench.Endpoint{Kind: tc.kind, SageMaker: sagemaker.Config{Format: tc.format}},
			Dataset:  dataset.Config{Name: tc.dataset},
			Request:  bench.RequestOptions{ExtraBody: extra, LoRAModules: tc.lora},
			IDPrefix: "p-",
		}
		reqs := buildRequests(&spec, samples, "m")
		for i, r := range reqs {
			if r.IgnoreEOS != tc.wantEOS || r.Model != tc.models[i] || r.ID != fmt.Sprintf("p-%d", i) || r.Index != i ||
				r.MaxTokens != samples[i].OutputLen || r.ExtraBody["temperature"] != 0.5 {
				t.Errorf("%s: request %d = %+v", tc.name, i, r)
			}
		}
	}
}
