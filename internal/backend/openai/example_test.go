package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/load"
)

// Example wires a schedule, the dispatcher and the client the way a step
// (internal/bench) does: 8 requests at 1000 requests/s (all arrive within
// 8 ms) with at most 2 in flight, against a loopback server that streams
// three chunks per request (15 ms each), so some requests must queue.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, s := range []string{"a", "b", "c"} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":%q}]}\n\n", s)
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()

	client, err := openai.New(openai.Config{URL: srv.URL + "/v1/completions", MaxConcurrency: 2})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	plan, err := load.Schedule(8, load.Arrivals{Rate: 1000, Seed: 0})
	if err != nil {
		panic(err)
	}
	resps := make([]backend.Response, 8)
	var mu sync.Mutex
	queued := 0
	res := load.Run(context.Background(), plan.Offsets, load.Options{MaxConcurrency: 2}, func(ctx context.Context, it load.Item) {
		req := backend.Request{Index: it.Index, ID: fmt.Sprintf("bench-%d", it.Index), Model: "m", Prompt: "hi", MaxTokens: 3}
		client.Send(ctx, &req, &resps[it.Index])
		if it.Acquired.After(it.Arrived) {
			mu.Lock()
			queued++
			mu.Unlock()
		}
	})
	ok := 0
	for _, r := range resps {
		if r.Err == nil && r.Chunks.Len() == 3 && r.Text == "abc" && *r.CompletionTokens == 3 {
			ok++
		}
	}
	fmt.Println("sent:", res.Sent, "ok:", ok, "some queued:", queued > 0)
	// Output: sent: 8 ok: 8 some queued: true
}
