package openai

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
)

// TestManyConcurrentStreams runs 200 streams at once through one client
// (pooled parsers and buffers shared between goroutines) and checks that
// every response carries exactly its own tokens.
func TestManyConcurrentStreams(t *testing.T) {
	t.Parallel()
	const n, chunks = 200, 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		id := r.Header.Get("X-Request-Id")
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range chunks {
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"%s.%d \"}]}\n\n", id, i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", chunks)
	}))
	defer srv.Close()
	c := newClient(t, srv, Config{MaxConcurrency: n})
	resps := make([]backend.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c.Send(t.Context(), &backend.Request{ID: fmt.Sprint("r", i), Model: "m", MaxTokens: chunks}, &resps[i])
		})
	}
	wg.Wait()
	for i, r := range resps {
		var want strings.Builder
		for k := range chunks {
			fmt.Fprintf(&want, "r%d.%d ", i, k)
		}
		if r.Err != nil || r.Chunks.Len() != chunks || r.Text != want.String() || r.CompletionTokens == nil || *r.CompletionTokens != chunks {
			t.Fatalf("request %d: err %v, %d chunks, text %q", i, r.Err, r.Chunks.Len(), r.Text)
		}
		if !slices.IsSortedFunc(r.Chunks.Times(), func(a, b time.Time) int { return a.Compare(b) }) || r.Chunks.At(0).Before(r.Start) {
			t.Fatalf("request %d: stamps out of order", i)
		}
	}
}
