package cli

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/nettest"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// stalledTokenizer is a /tokenize that never answers: each call waits for
// its context, and the deadline it was given is kept.
type stalledTokenizer struct {
	mu        sync.Mutex
	deadlines []time.Time
}

func (s *stalledTokenizer) Tokenize(ctx context.Context, _ string) ([]int, error) {
	d, _ := ctx.Deadline()
	s.mu.Lock()
	s.deadlines = append(s.deadlines, d)
	s.mu.Unlock()
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s *stalledTokenizer) Detokenize(ctx context.Context, _ []int) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

// TestCheckServerTokensGivesUp: a /tokenize that never answers is given
// tokenCheckTimeout in all, not 30 s per call; the check says so in one
// line and tells the caller to ask it nothing more.
func TestCheckServerTokensGivesUp(t *testing.T) {
	t.Parallel()
	tok, err := tokenizer.Load(t.Context(), tokenizer.BuiltinGPT2, tokenizer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &stalledTokenizer{}
	start := time.Now()
	warns, silent, err := checkServerTokens(t.Context(), st, tok, []dataset.Request{{Prompt: "hello"}, {Prompt: "world"}}, false)
	if err != nil || !silent || len(warns) != 1 || strings.Contains(warns[0], "\n") ||
		!strings.Contains(warns[0], "/tokenize gave no complete answer within 5s") {
		t.Errorf("got %q, silent %v, %v; want one line saying /tokenize gave no answer within 5s", warns, silent, err)
	}
	if len(st.deadlines) != 1 || st.deadlines[0].IsZero() || st.deadlines[0].Sub(start) >= 2*tokenCheckTimeout { // 30 s before
		t.Errorf("deadlines %v for calls started at %v: want one call, bounded by %v", st.deadlines, start, tokenCheckTimeout)
	}
}

// TestRunSilentServerWithTokenizer: a server that accepts connections and
// never answers ends a run with a tokenizer after the token check's few
// seconds and the request timeout, not 30 s per side call (or never).
func TestRunSilentServerWithTokenizer(t *testing.T) {
	t.Parallel()
	addr := nettest.Silent(t)
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(t, "run", "--base-url", "http://"+addr, "--model", "m", "--tokenizer", "builtin:gpt2",
			"--num-prompts", "2", "--request-timeout", "1s", "--disable-tqdm")
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.errs, "no request succeeded (2 of 2 failed") {
			t.Errorf("exit %d, want 1 with both requests failed:\n%s", r.code, r.errs)
		}
		if strings.Count(r.errs, "/tokenize") != 1 || !strings.Contains(r.errs, "Warning: /tokenize gave no complete answer within 5s") {
			t.Errorf("want one line about /tokenize:\n%s", r.errs)
		}
	case <-time.After(45 * time.Second): // 5 s + 1 s expected; two 30 s side calls before
		t.Fatal("a run against a server that never answers did not end within 45 s")
	}
}
