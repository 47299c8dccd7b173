package hfhub

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/nettest"
)

// silentHub accepts connections on 127.0.0.1 and never answers.
func silentHub(t *testing.T) string { return "http://" + nettest.Silent(t) }

// TestSilentHubDeadline: a hub that never answers fails a download and a
// listing after the header timeout, not after the 10-minute file timeout.
func TestSilentHubDeadline(t *testing.T) {
	t.Parallel()
	c := testClient(t, silentHub(t))
	c.HeaderTimeout = 200 * time.Millisecond
	calls := map[string]func(context.Context) error{
		"file": func(ctx context.Context) error {
			_, err := c.File(ctx, Repo{ID: "org/name"}, "tokenizer.json")
			return err
		},
		"list": func(ctx context.Context) error { _, _, err := c.List(ctx, Repo{ID: "org/name"}); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			done := make(chan error, 1)
			go func() { done <- call(context.Background()) }()
			select {
			case err := <-done:
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("error = %v, want a timeout", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("a call to a hub that never answers did not return")
			}
		})
	}
}

// TestSilentHubCancel: Ctrl-C ends a download at once.
func TestSilentHubCancel(t *testing.T) {
	t.Parallel()
	c := testClient(t, silentHub(t))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := c.File(ctx, Repo{ID: "org/name"}, "tokenizer.json"); done <- err }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want one wrapping context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("cancelling did not end the download")
	}
}
