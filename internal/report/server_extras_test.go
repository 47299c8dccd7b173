package report

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/servermetrics"
)

// scrapedWindow is a window that read a server's /metrics once (worker:
// one worker of a distributed run), cross-checked against no records.
func scrapedWindow(t *testing.T, worker bool) *servermetrics.Window {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "vllm:num_requests_running 3\n")
	}))
	t.Cleanup(srv.Close)
	w := servermetrics.Options{Spec: srv.URL + "/metrics", Interval: time.Second}.Start(t.Context(), srv.URL, false, worker, io.Discard)
	w.Stop()
	w.CrossCheck(nil, time.Now(), 0)
	if w.Result() == nil {
		t.Fatal("the window read nothing")
	}
	return w
}

// TestServerExtras: the server's Result goes under llmbench.server_metrics
// in a run's extras and a sweep step's result, its section under the
// table, the cross-check's notes into the self-check object (not a
// worker's); a window that was not asked for adds nothing.
func TestServerExtras(t *testing.T) {
	const scKey = ExtrasKey + "/self_check"
	tests := []struct {
		name      string
		w         *servermetrics.Window
		wantKey   bool
		wantCheck bool
	}{
		{"not asked for", nil, false, false},
		{"server", scrapedWindow(t, false), true, true},
		{"worker", scrapedWindow(t, true), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := NewObject()
			extra := map[string]any{scKey: sc}
			AddServerExtras(extra, tt.w, scKey)
			if _, ok := extra[ServerMetricsKey]; ok != tt.wantKey || len(extra) != map[bool]int{true: 2, false: 1}[tt.wantKey] {
				t.Errorf("extras %v, want %s: %v", extra, ServerMetricsKey, tt.wantKey)
			}
			if _, ok := sc.Get("server_cross_check"); ok != tt.wantCheck {
				t.Errorf("self_check has server_cross_check: %v, want %v", ok, tt.wantCheck)
			}
			obj := NewObject()
			obj.Set(ExtrasKey, NewObject())
			SetServerResult(obj, tt.w)
			x, _ := obj.Get(ExtrasKey)
			if _, ok := x.(*Object).Get("server_metrics"); ok != tt.wantKey {
				t.Errorf("step result has server_metrics: %v, want %v", ok, tt.wantKey)
			}
			var out strings.Builder
			if err := WriteServerSection(&out, tt.w); err != nil || strings.Contains(out.String(), ServerSpecifics) != tt.wantKey {
				t.Errorf("section %q, %v", out.String(), err)
			}
		})
	}
}
