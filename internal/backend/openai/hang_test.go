package openai

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/nettest"
)

// silentServer accepts connections on 127.0.0.1 and never answers.
func silentServer(t *testing.T) string { return "http://" + nettest.Silent(t) }

// TestTokenizeSilentServerDeadline: the call ends with a deadline error
// although the context has none.
func TestTokenizeSilentServerDeadline(t *testing.T) {
	t.Parallel()
	tc := &TokenizeClient{BaseURL: silentServer(t), Model: "m", Timeout: 200 * time.Millisecond}
	done := make(chan error, 2)
	go func() { _, err := tc.Tokenize(context.Background(), "hello"); done <- err }()
	go func() { _, err := tc.Detokenize(context.Background(), []int{1}); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error = %v, want one wrapping context.DeadlineExceeded", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("a call to a server that never answers did not return")
		}
	}
}

// TestSideCallsCancel: cancelling the context (Ctrl-C) ends /tokenize,
// /detokenize and the model list at once with context.Canceled, though
// their own deadlines are far away.
func TestSideCallsCancel(t *testing.T) {
	t.Parallel()
	url := silentServer(t)
	tc := &TokenizeClient{BaseURL: url, Model: "m", Timeout: time.Hour}
	calls := map[string]func(context.Context) error{
		"tokenize":   func(ctx context.Context) error { _, err := tc.Tokenize(ctx, "x"); return err },
		"detokenize": func(ctx context.Context) error { _, err := tc.Detokenize(ctx, []int{1}); return err },
		"models":     func(ctx context.Context) error { _, err := ListModels(ctx, nil, url, "k"); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- call(ctx) }()
			time.Sleep(50 * time.Millisecond) // usually connected by now; either way it must end
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error = %v, want one wrapping context.Canceled", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("cancelling did not end the call")
			}
		})
	}
}
