package servermetrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// TestInFlightAt: the client's count at the server's sample instants,
// shifted onto the records' clock; failures count nothing.
func TestInFlightAt(t *testing.T) {
	t.Parallel()
	recs := []record.Record{
		{Success: true, StartTime: 0, Latency: 2},
		{Success: true, StartTime: 1, Latency: 2},
		{Success: false, StartTime: 0, Latency: 0},
	}
	tests := []struct {
		at     []float64
		offset float64
		want   float64
	}{
		{nil, 0, 0},
		{[]float64{0.5, 1.5, 2.5, 3.5}, 0, (1 + 2 + 1 + 0) / 4.0},
		// The window started 0.5 s before the records' clock.
		{[]float64{0, 1, 2}, -0.5, (0 + 1 + 2) / 3.0},
	}
	for _, tt := range tests {
		if got := inFlightAt(recs, tt.at, tt.offset); got != tt.want {
			t.Errorf("inFlightAt(%v, %v) = %v, want %v", tt.at, tt.offset, got, tt.want)
		}
	}
}

// TestWindowReset: BeforeStart POSTs the origin's /reset_prefix_cache
// (the base URL's path dropped) and warns, without failing, when the
// server refuses; a nil Window does nothing and reads nothing.
func TestWindowReset(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		status int
		warn   string
	}{
		{"served", http.StatusOK, ""},
		{"refused", http.StatusNotFound, "Warning: --reset-prefix-cache: POST http://"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.Method + " " + r.URL.Path)
				w.WriteHeader(tt.status)
			}))
			t.Cleanup(srv.Close)
			var errw strings.Builder
			w := StartWindow(t.Context(), WindowConfig{ResetBase: srv.URL + "/v1", Errw: &errw})
			w.BeforeStart(t.Context())()
			w.Stop()
			if g, _ := got.Load().(string); g != "POST /reset_prefix_cache" {
				t.Errorf("the server saw %q", g)
			}
			if !strings.HasPrefix(errw.String(), tt.warn) || (tt.warn == "") != (errw.Len() == 0) {
				t.Errorf("warnings %q, want prefix %q", errw.String(), tt.warn)
			}
			if w.Result() != nil || w.CrossCheckNotes() != nil || w.Summary() != nil {
				t.Error("a window that scraped nothing has a result")
			}
		})
	}
	var nilW *Window
	if nilW.BeforeStart(t.Context()) != nil || nilW.Result() != nil {
		t.Error("a nil Window does something")
	}
	nilW.Stop()
	nilW.CrossCheck(nil, time.Time{}, 0)
	nilW.WriteCheck(io.Discard)
}
