package dataset

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend/openai"
)

// wordServer is a loopback stand-in for vLLM's /tokenize and /detokenize
// whose tokenizer differs from the client's: every space-separated word is
// one token.
func wordServer(t *testing.T, failTokenize func(prompt string) bool) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["model"] != "m" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/tokenize":
			if body["add_special_tokens"] != false {
				http.Error(w, "want add_special_tokens false", http.StatusBadRequest)
				return
			}
			p, _ := body["prompt"].(string)
			if failTokenize != nil && failTokenize(p) {
				http.Error(w, "boom", http.StatusInternalServerError)
				return
			}
			ids := []int{}
			for i := range strings.Fields(p) {
				ids = append(ids, 1000+i)
			}
			json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids)})
		case "/detokenize":
			var toks []int
			for _, x := range body["tokens"].([]any) {
				toks = append(toks, int(x.(float64)))
			}
			words := make([]string, len(toks))
			for i, id := range toks {
				words[i] = "w" + string(rune('a'+id%26))
			}
			json.NewEncoder(w).Encode(map[string]any{"prompt": strings.Join(words, " ")})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestAlignToServer(t *testing.T) {
	t.Parallel()
	reqs := []Request{
		{Prompt: "one two three four five", PromptLen: 3},
		{Prompt: "a b", PromptLen: 3},
		{Prompt: "x y z", PromptLen: 3},
		{Prompt: "p q r s t u", PromptLen: 4},
	}
	srv, _ := wordServer(t, nil)
	c := &openai.TokenizeClient{BaseURL: srv.URL + "/", Model: "m", Client: srv.Client()}
	out, warns, err := AlignToServer(t.Context(), c, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "server=5, expected=3") {
		t.Errorf("warnings %v", warns)
	}
	want := []string{"wm wn wo", "a b", "x y z", "wm wn wo wp"}
	for i, r := range out {
		if r.Prompt != want[i] || r.PromptLen != reqs[i].PromptLen {
			t.Errorf("request %d: %q (len %d), want %q", i, r.Prompt, r.PromptLen, want[i])
		}
	}
	if reqs[0].Prompt != "one two three four five" {
		t.Error("AlignToServer modified its input")
	}
}

func TestAlignToServerNoChangeWhenCountsAgree(t *testing.T) {
	t.Parallel()
	srv, calls := wordServer(t, nil)
	c := &openai.TokenizeClient{BaseURL: srv.URL, Model: "m", Client: srv.Client()}
	reqs := []Request{{Prompt: "a b c", PromptLen: 3}, {Prompt: "d e f g h", PromptLen: 3}}
	out, warns, err := AlignToServer(t.Context(), c, reqs)
	if err != nil || len(warns) != 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if out[1].Prompt != "d e f g h" || calls.Load() != 1 {
		t.Errorf("vLLM checks only the first prompt when it matches; got %q after %d calls", out[1].Prompt, calls.Load())
	}
}

func TestAlignToServerFailures(t *testing.T) {
	t.Parallel()
	// /tokenize missing: skip alignment with a warning.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	reqs := []Request{{Prompt: "a b c d", PromptLen: 2}}
	out, warns, err := AlignToServer(t.Context(), &openai.TokenizeClient{BaseURL: srv.URL, Model: "m", Client: srv.Client()}, reqs)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "/tokenize unavailable") || out[0].Prompt != "a b c d" {
		t.Errorf("got %v %v %v", out, warns, err)
	}
	// One prompt failing keeps that prompt as it was.
	ws, _ := wordServer(t, func(p string) bool { return strings.HasPrefix(p, "bad") })
	reqs = []Request{{Prompt: "a b c d", PromptLen: 2}, {Prompt: "bad x y z", PromptLen: 2}}
	out, warns, err = AlignToServer(t.Context(), &openai.TokenizeClient{BaseURL: ws.URL, Model: "m", Client: ws.Client()}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Prompt != "wm wn" || out[1].Prompt != "bad x y z" {
		t.Errorf("prompts %q %q", out[0].Prompt, out[1].Prompt)
	}
	if !strings.Contains(strings.Join(warns, "|"), "failed for 1 of 2") {
		t.Errorf("warnings %v", warns)
	}
}

// TestAlignToServerStalledServer: a server that answers the first /tokenize
// and then stops answering costs one round of deadlines, not one deadline
// per prompt; the prompts stay unaligned with a warning.
func TestAlignToServerStalledServer(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			json.NewEncoder(w).Encode(map[string]any{"tokens": []int{1, 2, 3, 4, 5}})
			return
		}
		select { // never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: lets srv.Close finish
	// The timeout must let the first, answered call through on a loaded
	// machine (200 ms did not, under -race beside other packages); the
	// stalled round then costs one timeout.
	tc := &openai.TokenizeClient{BaseURL: srv.URL, Model: "m", Timeout: 2 * time.Second}
	reqs := make([]Request, 500)
	for i := range reqs {
		reqs[i] = Request{Prompt: "a b c", PromptLen: 3}
	}
	out, warns, err := AlignToServer(t.Context(), tc, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(reqs) || out[0].Prompt != "a b c" {
		t.Errorf("prompts changed: %+v", out[0])
	}
	if n := calls.Load(); n > 1+2*alignConcurrency {
		t.Errorf("%d calls to a stalled server, want at most one round (%d)", n, 1+2*alignConcurrency)
	}
	if len(warns) != 2 || !strings.Contains(warns[1], "stopped answering") {
		t.Errorf("warnings = %q", warns)
	}
}
