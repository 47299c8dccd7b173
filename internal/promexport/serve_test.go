package promexport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

func scrape(t *testing.T, url string) (contentType, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// What Prometheus sends: OpenMetrics first.
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	return resp.Header.Get("Content-Type"), string(b)
}

func TestServeOpenMetrics(t *testing.T) {
	t.Parallel()
	e := New(Config{RunID: "r1", Backend: "openai", Model: "m"})
	addr, stop, err := e.Serve(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(0)
	r := record.Record{Success: true, PromptLen: 3, OutputTokens: intp(2), TTFT: 0.2, Latency: 0.3, ITL: []float64{0.1}}
	e.Observe(PhaseMain, &r)
	ct, body := scrape(t, "http://"+addr+"/metrics")
	if !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("content type %q, want OpenMetrics", ct)
	}
	for _, want := range []string{
		`llmbench_ttft_seconds_bucket{backend="openai",model="m",phase="main",run_id="r1",le="0.2"} 1`,
		`llmbench_requests_total{backend="openai",model="m",outcome="success",phase="main",run_id="r1"} 1`,
		`llmbench_output_tokens_total{backend="openai",model="m",phase="main",run_id="r1"} 2`,
		"# EOF",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestStopLingersForTheLastScrape: stop(linger) returns as soon as a
// scrape that began after it was called has been answered, long before
// the linger ends; stop(0) at once. No sleeps: scrapes repeat until stop
// returns, bounded by the test's deadline.
func TestStopLingersForTheLastScrape(t *testing.T) {
	t.Parallel()
	e := New(Config{})
	addr, stop, err := e.Serve(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	began := time.Now()
	go func() { stopped <- stop(time.Hour) }()
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case err := <-stopped:
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(began) > 20*time.Second {
				t.Errorf("stop took %v", time.Since(began))
			}
			if _, err := client.Get("http://" + addr + "/metrics"); err == nil {
				t.Error("endpoint still up after stop returned")
			}
			if err := stop(0); err != nil {
				t.Errorf("second stop: %v", err)
			}
			return
		case <-deadline:
			t.Fatal("stop(1h) did not return after scrapes")
		default:
		}
		if resp, err := client.Get("http://" + addr + "/metrics"); err == nil {
			resp.Body.Close()
		}
	}
}

func TestStopOnContextDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	e := New(Config{})
	_, stop, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- stop(time.Hour) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("stop(1h) did not return after the context was cancelled")
	}
}

func TestServeBadAddr(t *testing.T) {
	t.Parallel()
	if _, _, err := New(Config{}).Serve(t.Context(), "127.0.0.1:notaport"); err == nil {
		t.Fatal("no error for a bad address")
	}
}

func TestPush(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var method, path string
	var n int
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		method, path, n = r.Method, r.URL.Path, len(b)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer gw.Close()
	e := New(Config{RunID: "run-7", Backend: "openai", Model: "m"})
	r := record.Record{Success: true, PromptLen: 3, OutputTokens: intp(2), TTFT: 0.2, Latency: 0.3}
	e.Observe(PhaseMain, &r)
	if err := e.Push(t.Context(), gw.URL, "llmbench"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if method != http.MethodPut || path != "/metrics/job/llmbench/instance/run-7" || n == 0 {
		t.Errorf("pushed %s %s (%d bytes), want PUT /metrics/job/llmbench/instance/run-7 with a body", method, path, n)
	}

	gw.Close()
	if err := e.Push(t.Context(), gw.URL, "llmbench"); err == nil {
		t.Error("no error pushing to a closed gateway")
	}
}
