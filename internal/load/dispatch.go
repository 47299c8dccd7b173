package load

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Item is one request as the dispatcher handed it over.
type Item struct {
	// Index is the request's position in the schedule.
	Index int
	// Intended is when the schedule meant it to be sent: start + offset.
	Intended time.Time
	// Arrived is when the dispatcher fired it (vLLM's arrival time: the
	// task was created). Arrived - Intended is the dispatcher's lag.
	Arrived time.Time
	// Acquired is when it got a concurrency slot and fn was called; equal
	// to Arrived without a cap. Acquired - Arrived is client-side queueing
	// (vLLM's client_queue_time up to the few microseconds between here
	// and the backend's start stamp).
	Acquired time.Time

	// The fields below are set by RunUsers only (closed loop).

	// User is the virtual user that sent the request (0-based).
	User int
	// Iteration is the request's number within its user's loop (0-based).
	Iteration int
	// Think is the think time the user waited before this request (0 for
	// its first).
	Think time.Duration
	// Warmup is true for a request whose intended start fell within the
	// warm-up (Users.Warmup): the caller leaves it out of the metrics.
	Warmup bool
}

// Options configures Run. The zero value dispatches without a concurrency
// cap, starting now.
type Options struct {
	// MaxConcurrency caps the number of fn calls running at once; requests
	// that arrive while all slots are taken wait in arrival order. 0 means
	// no cap. The schedule is never delayed by the cap.
	MaxConcurrency int
	// Start is the instant offsets count from; the zero value means
	// time.Now() when Run is called. It must carry a monotonic reading
	// (come from time.Now()) for exact timing.
	Start time.Time
}

// Result says what Run did.
type Result struct {
	// Start is the instant offsets were counted from (vLLM's
	// benchmark_start_time).
	Start time.Time
	// End is when the last fn call returned (or Run gave up).
	End time.Time
	// Sent is the number of fn calls made.
	Sent int
	// NotSent lists the indices never dispatched because ctx was done
	// before their time.
	NotSent []int
	// Abandoned lists requests that were dispatched but canceled while
	// waiting for a concurrency slot; fn was not called for them.
	Abandoned []Item
}

// Run sends requests at start + offsets[i], open loop: one dispatcher
// goroutine waits for each absolute deadline on a single reused timer
// (never a relative sleep, so waiting errors do not add up) and hands the
// request over without waiting for anything. A request that finds a free
// slot (always, without opts.MaxConcurrency) runs fn at once in a goroutine
// of its own, started by the dispatcher; one that finds all
// opts.MaxConcurrency slots taken waits in a FIFO queue, and the request
// that frees a slot runs the next in line on its own goroutine. No
// channel or pre-started worker sits between the dispatcher and a free
// slot, so a slot free from the start costs no hand-over
// (docs/fidelity.md, "The hand-over").
// A slow server therefore never delays the schedule; it only makes
// requests queue, and Item.Acquired shows for how long.
//
// When ctx is done, dispatch stops: the remaining indices are reported in
// Result.NotSent, queued requests in Result.Abandoned, and calls in
// progress get the canceled ctx. Run returns when every fn call has
// returned. offsets must be non-decreasing (a Plan's are); a request whose
// time has already passed is fired at once.
//
// Precision: on Linux a Go timer in an otherwise idle process fires up to
// about 1 ms late, because the runtime waits in epoll with a millisecond
// timeout (vLLM's asyncio loop rounds its waits to milliseconds too). With
// streams in flight the scheduler checks timers more often and the lateness
// shrinks. It is never hidden: Item.Arrived - Item.Intended is each
// request's lag, and later requests do not inherit it (deadlines are
// absolute).
func Run(ctx context.Context, offsets []time.Duration, opts Options, fn func(ctx context.Context, it Item)) Result {
	res := Result{Start: opts.Start}
	if res.Start.IsZero() {
		res.Start = time.Now()
	}
	var wg sync.WaitGroup
	var sent atomic.Int64
	slots := newSlots(opts.MaxConcurrency)
	// run serves it, then whatever waits for its slot, on this goroutine:
	// a finished request hands its slot to the next in line without a
	// channel hop or another goroutine.
	run := func(it Item) {
		for ok := true; ok; it, ok = slots.next(ctx) {
			sent.Add(1)
			fn(ctx, it)
		}
	}

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for i, off := range offsets {
		due := res.Start.Add(off)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
			case <-timer.C:
			}
		}
		if ctx.Err() != nil {
			for j := i; j < len(offsets); j++ {
				res.NotSent = append(res.NotSent, j)
			}
			break
		}
		it := Item{Index: i, Intended: due, Arrived: time.Now()}
		// A free slot: the request starts now, on a goroutine of its own;
		// else it waits in line (FIFO) for a finishing request's slot.
		if slots.take(it) {
			it.Acquired = it.Arrived
			wg.Go(func() { run(it) })
		}
	}
	wg.Wait()
	res.End = time.Now()
	res.Abandoned = slots.abandon()
	res.Sent = int(sent.Load())
	return res
}

// slots is the concurrency cap: free slots and the requests waiting for
// one, in arrival order. The zero cap never queues.
type slots struct {
	mu        sync.Mutex
	capped    bool
	free      int
	queue     []Item
	abandoned []Item
}

func newSlots(maxConcurrency int) *slots {
	return &slots{capped: maxConcurrency > 0, free: maxConcurrency}
}

// take claims a slot for it (true), or queues it (false).
func (s *slots) take(it Item) bool {
	if !s.capped {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free > 0 && len(s.queue) == 0 {
		s.free--
		return true
	}
	s.queue = append(s.queue, it)
	return false
}

// next is called by a request that finished while holding a slot: it
// returns the first queued request, stamped with the time it got the
// slot, or frees the slot (false). Once ctx is done, queued requests are
// abandoned instead of sent.
func (s *slots) next(ctx context.Context) (Item, bool) {
	if !s.capped {
		return Item{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		s.abandoned = append(s.abandoned, s.queue...)
		s.queue = nil
	}
	if len(s.queue) == 0 {
		s.free++
		return Item{}, false
	}
	it := s.queue[0]
	s.queue = s.queue[1:]
	it.Acquired = time.Now()
	return it, true
}

// abandon returns the requests that never got a slot (ctx done), in
// index order; the run has ended.
func (s *slots) abandon() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append(s.abandoned, s.queue...)
	s.queue, s.abandoned = nil, nil
	slices.SortFunc(out, func(a, b Item) int { return a.Index - b.Index })
	return out
}

// Warmup sends n requests at once, at most maxConcurrency at a time (0: no
// cap), and returns when all are done: vLLM's --num-warmups (docs/metrics.md#warm-ups).
// fn receives the warm-up's number 0..n-1.
func Warmup(ctx context.Context, n, maxConcurrency int, fn func(ctx context.Context, i int)) {
	Run(ctx, make([]time.Duration, max(n, 0)), Options{MaxConcurrency: maxConcurrency},
		func(ctx context.Context, it Item) { fn(ctx, it.Index) })
}
