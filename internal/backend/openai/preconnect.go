package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/llmbench/llmbench/internal/backend/h1"
)

// Preconnect opens n connections to the server and leaves them idle in the
// client's pool, so that the timed run that follows does not pay for
// connection set-up (llmbench run --preconnect; docs/fidelity.md). Each
// carries one GET request for the models list (cheap on every
// OpenAI-compatible server; a 404 opens a connection as well), so the
// server has accepted it and served on it before the start. On the direct
// transport (plain http://, no proxy) each is dialled and sent its request
// as bytes; otherwise, through net/http, the n requests go at once, each
// response held until all n have one, so no request can reuse another's
// connection. All of it must be done within DefaultSideCallTimeout. It
// returns how many connections the pool then holds idle (n when every one
// opened: now, or already idle) and the first error.
func (c *Client) Preconnect(ctx context.Context, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	if c.tr.MaxIdleConnsPerHost < n {
		c.tr.MaxIdleConnsPerHost = n // nothing else uses the pool now
	}
	// One deadline for all (so a server that never answers cannot hold
	// the run back); each dial under it needs no timer of its own
	// (h1.Transport.Preconnect).
	ctx, cancel := context.WithTimeout(ctx, DefaultSideCallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.modelsURL(), nil)
	if err != nil {
		return 0, err
	}
	req.Header = c.header.Clone()
	if d, ok := c.http.Transport.(*h1.Transport); ok {
		if d.Serves(req) {
			return d.Preconnect(ctx, req, n)
		}
		d.SetMaxIdle(n)
	}
	return c.preconnectHTTP(ctx, req, n)
}

// preconnectHTTP opens n connections with n concurrent requests req.
func (c *Client) preconnectHTTP(ctx context.Context, req *http.Request, n int) (int, error) {
	var held atomic.Int64
	var (
		answered, done sync.WaitGroup
		release        = make(chan struct{})
		mu             sync.Mutex
		first          error
	)
	answered.Add(n)
	for range n {
		done.Go(func() {
			resp, err := c.http.Do(req.Clone(ctx))
			answered.Done()
			<-release
			if err != nil {
				mu.Lock()
				first = errors.Join(first, err)
				mu.Unlock()
				return
			}
			held.Add(1)
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		})
	}
	answered.Wait()
	close(release)
	done.Wait()
	if first != nil {
		// One line: the same failure n times says nothing more.
		first = errors.New(strings.SplitN(first.Error(), "\n", 2)[0])
	}
	return int(held.Load()), first
}

// modelsURL is the models list beside the API URL: .../v1/completions and
// .../v1/chat/completions become .../v1/models.
func (c *Client) modelsURL() string {
	u := strings.TrimSuffix(c.url, "/completions")
	u = strings.TrimSuffix(u, "/chat")
	return u + "/models"
}
