package prepare

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/dataset"
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
