package bench

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// httpBackend sends each request as a GET to a local httptest server over
// a fresh transport per backend and stamps two chunks: enough for the
// sampler to count connections and events.
type httpBackend struct {
	url        string
	client     *http.Client
	preconnect atomic.Int64
}

func (b *httpBackend) Send(ctx context.Context, _ *backend.Request, resp *backend.Response) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
	resp.Start = time.Now()
	r, err := b.client.Do(req)
	if err != nil {
		resp.Err = err
		return
	}
	r.Body.Close()
	resp.Chunks = backend.StampsOf(time.Now(), time.Now())
}

func (b *httpBackend) Preconnect(_ context.Context, n int) (int, error) {
	b.preconnect.Store(int64(n))
	return n, nil
}

func TestExecuteSelfCheck(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	be := &httpBackend{url: srv.URL, client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	p := &Plan{Backend: be, Requests: make([]backend.Request, 5), Preconnect: true,
		Load: Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: 3}}
	seen := &spySink{}
	out, err := Execute(t.Context(), p, Hooks{Sink: seen})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen.ends) != 1 || seen.ends[0] != out {
		t.Error("the sink's End did not see the outcome")
	}
	m := out.SelfCheck
	// Keep-alive off: every request opens its own connection.
	if m.Connections != 5 || m.Events != 10 || m.Cores < 1 || m.Wall <= 0 {
		t.Errorf("measurements %+v", m)
	}
	if be.preconnect.Load() != 3 || out.Preconnected != 3 {
		t.Errorf("preconnect asked for %d, outcome says %d; want the cap, 3", be.preconnect.Load(), out.Preconnected)
	}
	if out.Verdict.Verdict == "" {
		t.Error("no verdict")
	}
}

func TestHistQuantile(t *testing.T) {
	t.Parallel()
	buckets := []float64{0, 0.001, 0.002, 0.01, math.Inf(1)}
	tests := []struct {
		name   string
		counts []uint64
		q      float64
		want   time.Duration
	}{
		{"empty histogram is zero", []uint64{0, 0, 0, 0}, 0.99, 0},
		{"the bucket's upper bound", []uint64{99, 1, 0, 0}, 0.99, time.Millisecond},
		{"the tail bucket decides p99", []uint64{98, 0, 2, 0}, 0.99, 10 * time.Millisecond},
		{"the open last bucket gives its lower bound", []uint64{0, 0, 0, 1}, 0.99, 10 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := histQuantile(tt.counts, buckets, tt.q); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDispatchFigures(t *testing.T) {
	t.Parallel()
	recs := make([]record.Record, 100)
	for i := range recs {
		intended := float64(i) / 10 // 10 req/s
		recs[i] = record.Record{IntendedTime: &intended, StartTime: intended + 0.002, QueueTime: 0.001, TTFT: 0.05, ITL: []float64{0.01}}
	}
	recs[99].StartTime += 0.5 // one late dispatch
	var m selfcheck.Measurements
	dispatchFigures(&m, &Plan{Load: Load{Arrivals: load.Arrivals{Rate: 10}}}, recs)
	if m.Events != 200 {
		t.Errorf("events %d, want 200", m.Events)
	}
	// No cap: the lag is sent − intended, queue time included.
	if d := m.DispatchLagP99 - 2*time.Millisecond; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("lag p99 %v, want 2ms (the one late request is the 100th percentile)", m.DispatchLagP99)
	}
	// 100 requests by the last one's send, 9.9 + 0.002 + 0.5 s.
	if want := 100 / 10.402; m.TargetRate != 10 || math.Abs(m.AchievedRate-want) > 1e-9 {
		t.Errorf("rates %v of %v, want %v", m.AchievedRate, m.TargetRate, want)
	}
	// Under a cap the wait for a slot is not lag.
	m = selfcheck.Measurements{}
	dispatchFigures(&m, &Plan{Load: Load{Arrivals: load.Arrivals{Rate: 10}, MaxConcurrency: 4}}, recs)
	if d := m.DispatchLagP99 - time.Millisecond; d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("capped: lag p99 %v, want 1ms", m.DispatchLagP99)
	}
}

// TestInFlightFigures: a closed loop's in-flight count is judged against
// its users: the peak overlap of the records, bounded by the backend's
// connection pool, which a config's max_concurrency once set under a
// --users loop (issue 29: 16 users held at 4, TTFT counting the wait).
func TestInFlightFigures(t *testing.T) {
	t.Parallel()
	// 16 users, each with 3 back-to-back requests of 1 s: 16 overlap.
	var recs []record.Record
	for u := range 16 {
		for k := range 3 {
			recs = append(recs, record.Record{User: u + 1, StartTime: float64(k) + 0.01*float64(u), Latency: 0.99})
		}
	}
	users := load.Users{Users: 16}
	think := load.Users{Users: 16, Think: load.Think{Min: time.Second, Max: time.Second}}
	tests := []struct {
		name         string
		p            Plan
		recs         []record.Record
		wanted, held int
	}{
		{"open loop: not judged", Plan{Load: Load{MaxConcurrency: 4}}, recs, 0, 0},
		{"closed loop, no pool cap: the peak overlap", Plan{Load: Load{Users: &users}}, recs, 16, 16},
		{"closed loop under a pool of 4: held at 4", Plan{Load: Load{Users: &users}, ConnLimit: 4}, recs, 16, 4},
		{"thinking users: only the pool is judged", Plan{Load: Load{Users: &think}, ConnLimit: 4}, recs, 16, 4},
		{"thinking users, no cap: not measured", Plan{Load: Load{Users: &think}}, recs, 16, 0},
		{"too few records to tell: not measured", Plan{Load: Load{Users: &users}}, recs[:20], 16, 0},
	}
	for _, tt := range tests {
		var m selfcheck.Measurements
		inFlightFigures(&m, &tt.p, tt.recs)
		if m.InFlightWanted != tt.wanted || m.InFlightHeld != tt.held {
			t.Errorf("%s: wanted %d held %d, want %d and %d", tt.name, m.InFlightWanted, m.InFlightHeld, tt.wanted, tt.held)
		}
	}
}
