package servermetrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOptionsStart: nothing asked, no window; a reset POSTs the base's
// origin; "auto" scrapes the base's origin's /metrics; a spec that does
// not resolve is a warning and no scrape.
func TestOptionsStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opt     Options
		wantNil bool
		paths   string // what the server saw, first of each
		result  bool
		warn    string
	}{
		{name: "nothing", opt: Options{Interval: time.Second}, wantNil: true},
		{name: "reset", opt: Options{ResetPrefixCache: true, Interval: time.Second}, paths: "POST /reset_prefix_cache"},
		{name: "auto", opt: Options{Spec: "auto", Interval: time.Second}, paths: "GET /metrics", result: true},
		{name: "bad spec", opt: Options{Spec: "ftp://x", Interval: time.Second}, warn: "Warning: --server-metrics: \"ftp://x\" is not an http(s) URL\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			seen := map[string]bool{}
			var order []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				if k := r.Method + " " + r.URL.Path; !seen[k] {
					seen[k] = true
					order = append(order, k)
				}
				mu.Unlock()
				w.Write([]byte("vllm:num_requests_running 3\n"))
			}))
			t.Cleanup(srv.Close)
			var errw strings.Builder
			w := tt.opt.Start(t.Context(), srv.URL+"/v1", false, false, &errw)
			if (w == nil) != tt.wantNil {
				t.Fatalf("window %v, want nil: %v", w, tt.wantNil)
			}
			if before := w.BeforeStart(t.Context()); before != nil {
				before()
			}
			w.Stop()
			mu.Lock()
			got := strings.Join(order, ", ")
			mu.Unlock()
			if got != tt.paths {
				t.Errorf("the server saw %q, want %q", got, tt.paths)
			}
			if (w.Result() != nil) != tt.result {
				t.Errorf("result %+v, want one: %v", w.Result(), tt.result)
			}
			if errw.String() != tt.warn {
				t.Errorf("warnings %q, want %q", errw.String(), tt.warn)
			}
		})
	}
}

// TestOptionsCheck: a SageMaker endpoint has neither /metrics nor
// /reset_prefix_cache; otherwise the interval must be positive and the
// spec resolve against the base URL.
func TestOptionsCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opt       Options
		sageMaker bool
		base      string
		want      string // "" = no error
	}{
		{"nothing", Options{Interval: time.Second}, false, "http://h:8000", ""},
		{"auto", Options{Spec: "auto", Interval: time.Second}, false, "http://h:8000/v1", ""},
		{"auto without origin", Options{Spec: "auto", Interval: time.Second}, false, "h:8000", "--server-metrics auto: the base URL"},
		{"zero interval", Options{}, false, "http://h:8000", "--server-metrics-interval must be positive (got 0s)"},
		{"sagemaker, nothing", Options{}, true, "", ""},
		{"sagemaker, scrape", Options{Spec: "auto", Interval: time.Second}, true, "", "--server-metrics reads a server's /metrics, which a SageMaker endpoint does not expose"},
		{"sagemaker, reset", Options{ResetPrefixCache: true, Interval: time.Second}, true, "", "--reset-prefix-cache needs the server's /reset_prefix_cache"},
	}
	for _, tt := range tests {
		err := tt.opt.Check(tt.sageMaker, tt.base)
		if (err == nil) != (tt.want == "") || err != nil && !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}
