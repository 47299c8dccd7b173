package bench

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// fakeBackend streams n chunks gap apart, failing the first failFirst
// calls, and honours ctx like a real transport.
type fakeBackend struct {
	chunks    int
	gap       time.Duration
	failFirst int64
	calls     atomic.Int64
	inFlight  atomic.Int64
	maxFlight atomic.Int64
}

func (f *fakeBackend) Send(ctx context.Context, req *backend.Request, resp *backend.Response) {
	n := f.calls.Add(1)
	cur := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxFlight.Load()
		if cur <= m || f.maxFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	resp.Start = time.Now()
	if n <= f.failFirst {
		resp.Err, resp.ErrClass, resp.HTTPStatus = errors.New("HTTP 503 Service Unavailable"), record.ErrHTTP5xx, 503
		return
	}
	for range f.chunks {
		select {
		case <-ctx.Done():
			resp.Err, resp.ErrClass = ctx.Err(), record.ErrCanceled
			return
		case <-time.After(f.gap):
		}
		resp.Chunks.Append(time.Now())
		resp.Text += "x "
	}
	c := f.chunks
	resp.CompletionTokens, resp.FinishReason = &c, "length"
}

func requests(n int) []backend.Request {
	r := make([]backend.Request, n)
	for i := range r {
		r[i] = backend.Request{Index: i, ID: "r-" + string(rune('a'+i%26)), PromptLen: 10, MaxTokens: 3}
	}
	return r
}

func TestPrepareReadyCheckRetriesThenRuns(t *testing.T) {
	be := &fakeBackend{chunks: 2, gap: 5 * time.Millisecond, failFirst: 2}
	var events []string
	e := &execution{p: &Plan{Backend: be, Requests: requests(2), ReadyCheck: 5 * time.Second, NumWarmups: 5, Load: Load{MaxConcurrency: 2}},
		readyInterval: 10 * time.Millisecond, onEvent: func(m string) { events = append(events, m) }}
	if err := e.prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := be.calls.Load(); got != 3+5 {
		t.Errorf("%d calls, want 3 ready-check attempts + 5 warm-ups", got)
	}
	if m := be.maxFlight.Load(); m > 2 {
		t.Errorf("%d warm-ups in flight, cap 2", m)
	}
	if !strings.Contains(strings.Join(events, "|"), "Warmup run completed.") {
		t.Errorf("events %q", events)
	}
}

func TestPrepareReadyCheckGivesUp(t *testing.T) {
	be := &fakeBackend{chunks: 1, failFirst: 1 << 40}
	e := &execution{p: &Plan{Backend: be, Requests: requests(1), ReadyCheck: 300 * time.Millisecond}, readyInterval: 20 * time.Millisecond}
	err := e.prepare(t.Context())
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "not ready after 300ms") {
		t.Fatalf("got %v", err)
	}
}

func TestOpenLoopRecordsEveryRequestInOrder(t *testing.T) {
	be := &fakeBackend{chunks: 4, gap: 2 * time.Millisecond}
	var mu sync.Mutex
	seen := 0
	e := &execution{p: &Plan{Backend: be, Requests: requests(20), Load: Load{MaxConcurrency: 3}},
		sink: recordFunc(func(*record.Record) { mu.Lock(); seen++; mu.Unlock() })}
	res, err := e.openLoop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 20 || seen != 20 || res.Interrupted || res.NotSent != 0 {
		t.Fatalf("%d records, %d callbacks, interrupted %v, not sent %d", len(res.Records), seen, res.Interrupted, res.NotSent)
	}
	if m := be.maxFlight.Load(); m > 3 {
		t.Errorf("%d requests in flight, cap 3", m)
	}
	queued := 0
	for i, r := range res.Records {
		if r.Index != i || !r.Success || len(r.ITL) != 3 || r.TTFT <= 0 || r.Latency < r.TTFT {
			t.Errorf("record %d: %+v", i, r)
		}
		if r.QueueTime > 0 {
			queued++
		}
		if sum := r.TTFT + r.ITL[0] + r.ITL[1] + r.ITL[2]; abs(sum-r.Latency) > 1e-6 {
			t.Errorf("record %d: ttft+sum(itl) = %v, latency %v", i, sum, r.Latency)
		}
		if r.IntendedTime == nil || r.StartTime < *r.IntendedTime {
			t.Errorf("record %d starts before its intended time", i)
		}
	}
	if queued == 0 {
		t.Error("with 20 requests at once and a cap of 3, some must have queued")
	}
	if res.Duration <= 0 {
		t.Error("duration not positive")
	}
}

func TestOpenLoopRequestTimeout(t *testing.T) {
	be := &fakeBackend{chunks: 50, gap: 20 * time.Millisecond}
	// 1 s of chunks cut at 400 ms: the first chunk (20 ms) comes well
	// before the deadline even when timers run late on a loaded machine.
	e := &execution{p: &Plan{Backend: be, Requests: requests(2), RequestTimeout: 400 * time.Millisecond}}
	res, err := e.openLoop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Success || r.Latency != 0 || r.TTFT == 0 {
			t.Errorf("a request cut by its deadline fails, keeps its partial ttft and has latency 0: %+v", r)
		}
	}
}

// TestOpenLoopInterruptGrace: after cancellation nothing more is sent, and
// requests in flight get the grace period to finish.
func TestOpenLoopInterruptGrace(t *testing.T) {
	be := &fakeBackend{chunks: 5, gap: 20 * time.Millisecond} // 100 ms per request
	sched := make([]time.Duration, 10)
	for i := range sched {
		sched[i] = time.Duration(i) * 200 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(250*time.Millisecond, cancel) // during request 1
	e := &execution{p: &Plan{Backend: be, Requests: requests(10)}, offsets: sched, grace: 2 * time.Second}
	res, err := e.openLoop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Records) != 2 || res.NotSent != 8 {
		t.Fatalf("interrupted %v, %d records, %d not sent; want true, 2, 8", res.Interrupted, len(res.Records), res.NotSent)
	}
	for _, r := range res.Records {
		if !r.Success {
			t.Errorf("request %d in flight at the interrupt should finish within the grace period: %s", r.Index, r.Error)
		}
	}

	// With no grace left, the request in flight is cancelled but recorded.
	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(250*time.Millisecond, cancel)
	e = &execution{p: e.p, offsets: sched, grace: time.Millisecond}
	res, err = e.openLoop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 || res.Records[1].Success || res.Records[1].ErrorClass != record.ErrCanceled {
		t.Fatalf("records %+v", res.Records)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestOpenLoopSlowSinkDoesNotHoldSlots: a sink (a progress line) that
// stalls must not keep finished requests in their concurrency slots (the next requests
// would queue behind it and the stall would show up as queue time).
func TestOpenLoopSlowSinkDoesNotHoldSlots(t *testing.T) {
	const n = 5000       // more than any fixed buffer between requests and the sink
	be := &fakeBackend{} // no chunks: as cheap a request as can be
	var once sync.Once
	sentDuringStall := int64(0)
	e := &execution{p: &Plan{Backend: be, Requests: requests(n), Load: Load{MaxConcurrency: 2}},
		sink: recordFunc(func(*record.Record) {
			once.Do(func() {
				// Stall until every request has been sent, or give up.
				deadline := time.Now().Add(20 * time.Second)
				for be.calls.Load() < n && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				sentDuringStall = be.calls.Load()
			})
		})}
	res, err := e.openLoop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sentDuringStall != n {
		t.Errorf("only %d of %d requests were sent while the first record's sink stalled", sentDuringStall, n)
	}
	if len(res.Records) != n {
		t.Fatalf("%d records, want %d", len(res.Records), n)
	}
}

// TestPrepareRequestTimeout: --request-timeout bounds warm-ups and ready
// check attempts too, not only the timed requests.
func TestPrepareRequestTimeout(t *testing.T) {
	be := &fakeBackend{chunks: 100, gap: 50 * time.Millisecond} // 5 s per request
	p := &Plan{Backend: be, Requests: requests(1), NumWarmups: 2, RequestTimeout: 50 * time.Millisecond}
	began := time.Now()
	if err := (&execution{p: p}).prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 4*time.Second { // uncut, the warm-ups take 5 s
		t.Errorf("warm-ups took %v; each should have been cut at 50ms", d)
	}
	p.NumWarmups, p.ReadyCheck = 0, time.Second
	err := (&execution{p: p, readyInterval: 10 * time.Millisecond}).prepare(t.Context())
	if !errors.Is(err, ErrNotReady) {
		t.Fatalf("got %v, want the ready check to fail", err)
	}
	if n := be.calls.Load(); n < 2+3 {
		t.Errorf("%d calls in all: ready check attempts were not cut at 50ms", n)
	}
}

// deadlineBackend records whether each request's context had a deadline;
// as a backend.Bounder it bounds requests up to bound.
type deadlineBackend struct {
	bound        time.Duration
	withDeadline atomic.Int64
	calls        atomic.Int64
}

func (d *deadlineBackend) Send(ctx context.Context, _ *backend.Request, resp *backend.Response) {
	d.calls.Add(1)
	if _, ok := ctx.Deadline(); ok {
		d.withDeadline.Add(1)
	}
	resp.Start = time.Now()
	resp.Err, resp.ErrClass = errors.New("no server"), record.ErrConnection
}

type boundingBackend struct{ *deadlineBackend }

func (b boundingBackend) Bounds(t time.Duration) bool { return b.bound <= t }

// TestSendLeavesTimeoutToBounder: a backend that bounds its requests as
// tightly as RequestTimeout gets no deadline from bench (it keeps
// its own); one that does not, or bounds them more loosely, does.
func TestSendLeavesTimeoutToBounder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		be   backend.Backend
		want int64 // requests that saw a deadline, of 3
	}{
		{"not a bounder", &deadlineBackend{}, 3},
		{"bounder within the timeout", boundingBackend{&deadlineBackend{bound: time.Minute}}, 0},
		{"bounder beyond the timeout", boundingBackend{&deadlineBackend{bound: time.Hour}}, 3},
	} {
		e := &execution{p: &Plan{Backend: tc.be, Requests: requests(3), RequestTimeout: time.Minute}}
		if _, err := e.openLoop(t.Context()); err != nil {
			t.Fatal(err)
		}
		d := tc.be.(interface{ counts() (int64, int64) })
		if calls, got := d.counts(); calls != 3 || got != tc.want {
			t.Errorf("%s: %d of %d requests had a deadline, want %d of 3", tc.name, got, calls, tc.want)
		}
	}
}

func (d *deadlineBackend) counts() (int64, int64) { return d.calls.Load(), d.withDeadline.Load() }

// recordFunc is a Sink that only sees records.
type recordFunc func(r *record.Record)

func (f recordFunc) Begin(time.Time, record.Header) error { return nil }
func (f recordFunc) Record(r *record.Record)              { f(r) }
func (f recordFunc) End(*Outcome)                         {}
