package promsink

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/record"
)

// series counts the series of the metric name with the label phase=ph
// ("" = any).
func series(t *testing.T, l *Live, name, ph string) int {
	t.Helper()
	mfs, err := l.Exporter().Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if ph == "" || (lp.GetName() == "phase" && lp.GetValue() == ph) {
					n++
					break
				}
			}
		}
	}
	return n
}

// TestSinkPhases: a step's sink observes its records under the phase
// started before it (a later StartPhase does not move them), and only an
// outcome publishes the self-check verdict.
func TestSinkPhases(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		outcome *bench.Outcome
		verdict bool
	}{
		{"with an outcome", &bench.Outcome{}, true},
		{"stopped early", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := From(promexport.New(promexport.Config{}))
			l.StartPhase("concurrency-2", &bench.Plan{Load: bench.Load{Arrivals: load.Arrivals{Rate: 4}, MaxConcurrency: 2}})
			s := l.Sink()
			l.StartPhase("concurrency-4", &bench.Plan{})
			if err := s.Begin(time.Now(), record.Header{}); err != nil {
				t.Fatal(err)
			}
			s.Record(&record.Record{Index: 0, Success: true, Latency: 0.2, TTFT: 0.1})
			s.End(tt.outcome)
			if n := series(t, l, "llmbench_requests_total", "concurrency-2"); n == 0 {
				t.Error("the record is not counted under its step's phase")
			}
			if n := series(t, l, "llmbench_requests_total", "concurrency-4"); n != 0 {
				t.Error("the record is counted under the later phase")
			}
			if n := series(t, l, "llmbench_client_verdict", ""); (n > 0) != tt.verdict {
				t.Errorf("%d verdict series, want some: %v", n, tt.verdict)
			}
			l.Finish(context.Background(), io.Discard)
		})
	}
}

// TestNilLive: without an exporter every call is a no-op and the sink
// is nil, which bench.Sinks skips.
func TestNilLive(t *testing.T) {
	var l *Live
	l.StartPhase("main", &bench.Plan{})
	if l.Sink() != nil || l.Counter() != nil {
		t.Error("a nil Live gives a sink or a counter")
	}
	l.Finish(context.Background(), io.Discard)
}

// TestRun: no exporter unless asked; one asked for listens where it says
// and serves /metrics; an address it cannot listen on is an error naming
// --metrics-addr.
func TestRun(t *testing.T) {
	t.Parallel()
	plan := &bench.Plan{IDPrefix: "bench-abc-"}
	var out strings.Builder
	if l, err := Run(t.Context(), Config{}, plan, &out); l != nil || err != nil || out.Len() > 0 {
		t.Fatalf("nothing asked: %v, %v, %q", l, err, out.String())
	}
	l, err := Run(t.Context(), Config{Addr: "127.0.0.1:0"}, plan, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Finish(context.Background(), io.Discard)
	url, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "Live metrics on ")
	if !ok {
		t.Fatalf("printed %q", out.String())
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", url, resp.Status)
	}
	busy := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics")
	if _, err := Run(t.Context(), Config{Addr: busy}, plan, io.Discard); err == nil || !strings.HasPrefix(err.Error(), "--metrics-addr "+busy+": ") {
		t.Errorf("a busy address: %v", err)
	}
}
