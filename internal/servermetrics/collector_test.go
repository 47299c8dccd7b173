package servermetrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitHits waits (bounded, for "does not hang" only) until the server saw n requests.
func waitHits(t *testing.T, hits *atomic.Int64, n int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for hits.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d scrapes arrived", hits.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCollectorScrapes reads a vLLM-like server: one scrape at Start, at
// Mark, every interval and at Stop; the summary covers Mark..Stop.
func TestCollectorScrapes(t *testing.T) {
	t.Parallel()
	var hits, gen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "text/plain") {
			t.Errorf("Accept %q", r.Header.Get("Accept"))
		}
		hits.Add(1)
		g := gen.Load()
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 4\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} %d\n# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} %d\n", 8+g/100, g)
	}))
	defer srv.Close()
	c := Start(t.Context(), Config{URLs: []string{srv.URL + "/metrics"}, Interval: 250 * time.Millisecond})
	waitHits(t, &hits, 1)
	c.Mark() // waits for its scrape: it reads 0
	gen.Store(100)
	waitHits(t, &hits, 4)
	gen.Store(300)
	res := c.Stop()
	// The window's edges are Mark's scrape (0) and Stop's (300).
	s := res.Summary
	if s.Scrapes < 3 || s.ScrapeErrors != 0 || len(res.Warnings) != 0 {
		t.Fatalf("scrapes %d, errors %d, warnings %q", s.Scrapes, s.ScrapeErrors, res.Warnings)
	}
	if s.GenerationTokens == nil || *s.GenerationTokens != 300 {
		t.Errorf("generation_tokens %v, want 300", s.GenerationTokens)
	}
	if s.RunningMax == nil || *s.RunningMax != 4 || s.WaitingMax == nil || *s.WaitingMax != 11 {
		t.Errorf("running_max %v waiting_max %v, want 4 and 11", s.RunningMax, s.WaitingMax)
	}
	if s.Server != "vllm" || len(res.Endpoints) != 1 || res.Endpoints[0].URL != srv.URL+"/metrics" {
		t.Errorf("server %q endpoints %+v", s.Server, res.Endpoints)
	}
	if again := c.Stop(); again.Summary.Scrapes != s.Scrapes {
		t.Errorf("second Stop gave another result")
	}
}

// TestCollectorFailures: every way a /metrics can fail gives one warning,
// counted scrape errors, and a Stop that comes back within its bound.
func TestCollectorFailures(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("# padding line for a fifty megabyte answer\n", 50<<20/43)
	tests := []struct {
		name     string
		interval time.Duration
		handler  func(w http.ResponseWriter, r *http.Request)
		path     string // the URL's path
		warn     string // in the one warning
		wantURL  string // the endpoint's URL afterwards ("" = unchanged)
	}{
		{"hangs", 250 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "/metrics", "no answer within 250ms", ""},
		{"hangs mid-body", 250 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "# TYPE vllm:num_requests_running gauge\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, "/metrics", "not complete within 250ms", ""},
		{"404", 250 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "/metrics", "HTTP 404", ""},
		{"json then 404", 250 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/metrics" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `[{"iter": 1, "numActiveRequests": 4}]`)
				return
			}
			http.NotFound(w, r)
		}, "/metrics", "answered JSON, not the Prometheus text format, and", ""},
		{"garbage", 250 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "\x00\x01 this is { not metrics\n")
		}, "/metrics", "not the Prometheus text format", ""},
		{"html", 250 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "<html><body>login</body></html>\n")
		}, "/metrics", "not the Prometheus text format", ""},
		{"50 MB", 2 * time.Second, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, big)
		}, "/metrics", "larger than 8388608 bytes", ""},
		{"refused", 250 * time.Millisecond, nil, "/metrics", "connection refused", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tt.handler(w, r)
			}))
			url := srv.URL + tt.path
			if tt.handler == nil {
				srv.Close()
			} else {
				defer srv.Close()
			}
			var warned atomic.Int64
			c := Start(t.Context(), Config{URLs: []string{"http://user:secret@" + strings.TrimPrefix(url, "http://") + "?token=hush"},
				Interval: tt.interval, OnWarning: func(string) { warned.Add(1) }})
			if tt.handler != nil {
				waitHits(t, &hits, 2)
			}
			c.Mark()
			begin := time.Now()
			res := c.Stop()
			if d := time.Since(begin); d > 10*tt.interval+5*time.Second {
				t.Errorf("Stop took %v", d) // a generous "does not hang" bound
			}
			ep := res.Endpoints[0]
			if ep.ScrapeErrors < 1 || ep.Scrapes != 0 {
				t.Errorf("scrapes %d, errors %d", ep.Scrapes, ep.ScrapeErrors)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tt.warn) {
				t.Errorf("warnings %q, want one with %q", res.Warnings, tt.warn)
			}
			for _, w := range append(res.Warnings, ep.URL) {
				if strings.Contains(w, "secret") || strings.Contains(w, "hush") {
					t.Errorf("credentials shown: %q", w)
				}
			}
			if ep.URL != url {
				t.Errorf("endpoint URL %q, want %q", ep.URL, url)
			}
			if res.Summary.RunningMax != nil || len(res.Families) != 0 {
				t.Errorf("figures from a failing server: %+v", res.Summary)
			}
		})
	}
}

// TestCollectorJSONFallback: TensorRT-LLM answers JSON on /metrics and
// Prometheus on /prometheus/metrics; the collector moves there once.
func TestCollectorJSONFallback(t *testing.T) {
	t.Parallel()
	var jsonHits, promHits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			jsonHits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `[{"iter": 1}]`)
		case "/prometheus/metrics":
			promHits.Add(1)
			_, _ = io.WriteString(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 2\n")
		}
	}))
	defer srv.Close()
	c := Start(t.Context(), Config{URLs: []string{srv.URL + "/metrics"}, Interval: 250 * time.Millisecond})
	waitHits(t, &promHits, 3)
	c.Mark()
	res := c.Stop()
	if jsonHits.Load() != 1 {
		t.Errorf("/metrics asked %d times, want once", jsonHits.Load())
	}
	ep := res.Endpoints[0]
	if ep.URL != srv.URL+"/prometheus/metrics" || ep.ScrapeErrors != 0 || ep.Scrapes < 3 || len(res.Warnings) != 0 {
		t.Errorf("endpoint %+v, warnings %q", ep, res.Warnings)
	}
	if v := res.Summary.RunningMax; v == nil || *v != 2 {
		t.Errorf("running_max %v, want 2", v)
	}
}

// TestCollectorContextEnds: the caller's context ending stops the
// scrapes; Stop still returns, without counting the cancellation as the
// server's error.
func TestCollectorContextEnds(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	c := Start(ctx, Config{URLs: []string{srv.URL + "/metrics"}, Interval: time.Hour})
	cancel()
	res := c.Stop()
	if len(res.Endpoints) != 1 {
		t.Fatalf("endpoints %+v", res.Endpoints)
	}
	if res.Endpoints[0].ScrapeErrors != 0 || len(res.Warnings) != 0 {
		t.Errorf("cancellation counted: %+v %q", res.Endpoints[0], res.Warnings)
	}
}

// TestCollectorBadURL: an unusable URL is a warning and errors, not a panic.
func TestCollectorBadURL(t *testing.T) {
	t.Parallel()
	c := Start(t.Context(), Config{URLs: []string{"ftp://x:pw@host/metrics"}, Interval: 10 * time.Millisecond})
	res := c.Stop()
	if len(res.Warnings) != 1 || res.Endpoints[0].ScrapeErrors < 1 || strings.Contains(res.Warnings[0], "pw") {
		t.Errorf("warnings %q endpoints %+v", res.Warnings, res.Endpoints)
	}
}
