package load

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder collects Items from concurrent fn calls.
type recorder struct {
	mu       sync.Mutex
	items    []Item
	inFlight int
	maxIn    int
}

func (r *recorder) fn(work func(i int) time.Duration) func(context.Context, Item) {
	return func(ctx context.Context, it Item) {
		r.mu.Lock()
		r.items = append(r.items, it)
		r.inFlight++
		r.maxIn = max(r.maxIn, r.inFlight)
		r.mu.Unlock()
		select {
		case <-time.After(work(it.Index)):
		case <-ctx.Done():
		}
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}
}

func (r *recorder) sorted() []Item {
	out := slices.Clone(r.items)
	slices.SortFunc(out, func(a, b Item) int { return a.Index - b.Index })
	return out
}

// TestRunExactArrivals: in virtual time, every request is fired exactly at
// its planned instant even though each takes 30 s to serve (a slow server
// never delays the schedule).
func TestRunExactArrivals(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p, err := Schedule(200, Arrivals{Rate: 20, Burstiness: 0.5, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		var rec recorder
		start := time.Now()
		res := Run(t.Context(), p.Offsets, Options{Start: start}, rec.fn(func(int) time.Duration { return 30 * time.Second }))
		items := rec.sorted()
		if res.Sent != 200 || len(items) != 200 || len(res.NotSent) != 0 {
			t.Fatalf("sent %d, got %d items, not sent %v", res.Sent, len(items), res.NotSent)
		}
		for i, it := range items {
			want := start.Add(p.Offsets[i])
			if !it.Intended.Equal(want) || !it.Arrived.Equal(want) || !it.Acquired.Equal(want) {
				t.Fatalf("request %d: intended %v arrived %v acquired %v, planned %v",
					i, it.Intended.Sub(start), it.Arrived.Sub(start), it.Acquired.Sub(start), p.Offsets[i])
			}
		}
		// The run lasts until the last request is done: last arrival at
		// exactly n/rate = 10 s, plus 30 s of service.
		if d := res.End.Sub(start); d != 40*time.Second {
			t.Fatalf("run took %v, want 40s", d)
		}
		if rec.maxIn < 2 {
			t.Fatalf("requests did not overlap (max in flight %d)", rec.maxIn)
		}
	})
}

// TestRunConcurrencyCap: with all requests due at 0 and a cap of 3, three
// run at a time, slots go in arrival order, and the queue times are exact.
func TestRunConcurrencyCap(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		start := time.Now()
		res := Run(t.Context(), make([]time.Duration, 10), Options{MaxConcurrency: 3},
			rec.fn(func(int) time.Duration { return time.Second }))
		if rec.maxIn != 3 {
			t.Fatalf("max in flight %d, want 3", rec.maxIn)
		}
		for i, it := range rec.sorted() {
			wantQueue := time.Duration(i/3) * time.Second
			if !it.Arrived.Equal(start) || it.Acquired.Sub(it.Arrived) != wantQueue {
				t.Fatalf("request %d: arrived %v, queued %v; want 0, %v", i, it.Arrived.Sub(start), it.Acquired.Sub(it.Arrived), wantQueue)
			}
		}
		// FIFO is the exact queue times above: request i got a slot after
		// i/3 rounds. Requests that get their slots at the same instant
		// run on goroutines of their own, so their fn calls have no order.
		if d := res.End.Sub(start); d != 4*time.Second {
			t.Fatalf("took %v, want 4s", d)
		}
	})
}

// TestRunCapDoesNotDelayArrivals: arrivals stay on schedule while requests
// queue behind a cap of 1.
func TestRunCapDoesNotDelayArrivals(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		offsets := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 5 * time.Second}
		var rec recorder
		start := time.Now()
		Run(t.Context(), offsets, Options{MaxConcurrency: 1, Start: start}, rec.fn(func(int) time.Duration { return time.Second }))
		wantAcq := []time.Duration{0, time.Second, 2 * time.Second, 5 * time.Second}
		for i, it := range rec.sorted() {
			if it.Arrived.Sub(start) != offsets[i] || it.Acquired.Sub(start) != wantAcq[i] {
				t.Fatalf("request %d: arrived %v acquired %v; want %v, %v", i, it.Arrived.Sub(start), it.Acquired.Sub(start), offsets[i], wantAcq[i])
			}
		}
	})
}

// TestRunCancel: canceling stops dispatch, reports what was not sent and
// what was abandoned in the queue, and cancels calls in progress.
func TestRunCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		offsets := make([]time.Duration, 10)
		for i := range offsets {
			offsets[i] = time.Duration(i) * time.Second // 0s, 1s, ..., 9s
		}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(3500*time.Millisecond, cancel)
		var rec recorder
		start := time.Now()
		res := Run(ctx, offsets, Options{MaxConcurrency: 2}, rec.fn(func(int) time.Duration { return time.Hour }))
		// Fired at 0,1,2,3 s; 0 and 1 hold the two slots, 2 and 3 queue.
		if !slices.Equal(res.NotSent, []int{4, 5, 6, 7, 8, 9}) {
			t.Fatalf("not sent %v", res.NotSent)
		}
		if len(res.Abandoned) != 2 || res.Abandoned[0].Index != 2 || res.Abandoned[1].Index != 3 {
			t.Fatalf("abandoned %+v", res.Abandoned)
		}
		if res.Sent != 2 || len(rec.items) != 2 {
			t.Fatalf("sent %d, calls %d", res.Sent, len(rec.items))
		}
		// The calls in progress saw the cancellation at once.
		if d := res.End.Sub(start); d != 3500*time.Millisecond {
			t.Fatalf("Run returned after %v, want 3.5s", d)
		}
	})
}

// TestRunCancelUncapped: without a cap, nothing is abandoned.
func TestRunCancelUncapped(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		var rec recorder
		res := Run(ctx, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, Options{},
			rec.fn(func(int) time.Duration { return time.Hour }))
		if res.Sent != 1 || !slices.Equal(res.NotSent, []int{1, 2}) || len(res.Abandoned) != 0 {
			t.Fatalf("%+v", res)
		}
	})
}

func TestRunEmpty(t *testing.T) {
	t.Parallel()
	res := Run(t.Context(), nil, Options{MaxConcurrency: 4}, func(context.Context, Item) { t.Error("called") })
	if res.Sent != 0 || res.End.Before(res.Start) {
		t.Fatalf("%+v", res)
	}
}

func TestWarmup(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		start := time.Now()
		Warmup(t.Context(), 5, 2, func(ctx context.Context, i int) {
			rec.fn(func(int) time.Duration { return time.Second })(ctx, Item{Index: i})
		})
		if len(rec.items) != 5 || rec.maxIn != 2 || time.Since(start) != 3*time.Second {
			t.Fatalf("%d calls, max in flight %d, took %v", len(rec.items), rec.maxIn, time.Since(start))
		}
	})
}
