package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// DefaultGrace is how long an interrupted step waits for requests already
// in flight before cancelling them.
const DefaultGrace = 5 * time.Second

// ErrNotReady wraps a failed ready check. The text is vLLM's, word for word.
//
//lint:ignore ST1005 vLLM's exact message, capital and all
var ErrNotReady = errors.New("Initial test run failed - Please make sure benchmark arguments are correctly specified")

// execution is the state of one Execute call that the executors share
// (openLoop, users, conversations): they read the plan and send through
// send, and every record they make goes through collect, on one
// goroutine off every request's path.
type execution struct {
	p *Plan
	// offsets are the open loop's send offsets from origin (nil: all at
	// once); schedule computes them.
	offsets []time.Duration
	// origin is the instant the schedule and the records' clock count
	// from (a records file's header anchors it); zero = time.Now() when
	// an executor starts. It must come from time.Now() (monotonic reading).
	origin time.Time
	// grace bounds how long an interrupted step waits for requests in
	// flight (0 = DefaultGrace); readyInterval is the wait between ready
	// check attempts (0 = vLLM's 5 s). Tests shorten them.
	grace, readyInterval time.Duration
	// onEvent and inFlight are Hooks.OnEvent and Hooks.InFlight.
	onEvent  func(msg string)
	inFlight *atomic.Int64
	// sink sees every record (Hooks.Sink); watch stops a step whose first
	// requests all failed alike (Plan.AbortAfter). Either may be nil.
	sink  Sink
	watch *failWatch
}

func (e *execution) event(format string, a ...any) {
	if e.onEvent != nil {
		e.onEvent(fmt.Sprintf(format, a...))
	}
}

// start is origin, or now when none was set.
func (e *execution) start() time.Time {
	if e.origin.IsZero() {
		e.origin = time.Now()
	}
	return e.origin
}

// collect runs on an executor's collector goroutine for each record: it
// counts the text of a stream that sent no usage (so a saved record
// recomputes without the tokenizer), cleans the answer of the run's
// secrets, stamps the worker and hands the record to the sink and to the
// failure watch.
func (e *execution) collect(r *record.Record) {
	p := e.p
	if p.Tokenizer != nil && r.Success && (r.OutputTokens == nil || *r.OutputTokens == 0) {
		r.TokenizerCount = p.Tokenizer.CountTokens(r.GeneratedText)
		r.OutputTokensSource = record.SourceTokenizer
	}
	redactAnswer(p.Backend, r) // after the count: the text as the server sent it
	r.Worker = p.Worker
	if e.sink != nil {
		e.sink.Record(r)
	}
	if e.watch != nil {
		e.watch.see(r)
	}
}

// send sends req under Plan.RequestTimeout, if one is set (left to the
// backend when it bounds requests as tightly itself: backend.Bounder).
func (e *execution) send(ctx context.Context, req *backend.Request, resp *backend.Response) {
	if e.inFlight != nil {
		e.inFlight.Add(1)
		defer e.inFlight.Add(-1)
	}
	be, timeout := e.p.Backend, e.p.RequestTimeout
	if b, ok := be.(backend.Bounder); timeout > 0 && !(ok && b.Bounds(timeout)) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	be.Send(ctx, req, resp)
}

func (e *execution) graceOrDefault() time.Duration {
	if e.grace <= 0 {
		return DefaultGrace
	}
	return e.grace
}

// graceContext is the context requests run under: it outlives ctx by the
// grace period, so that an interrupt does not throw away streams about to
// finish. stop releases it.
func (e *execution) graceContext(ctx context.Context) (reqCtx context.Context, stop func()) {
	grace := e.graceOrDefault()
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancelReqs)
		<-reqCtx.Done()
		t.Stop()
	})
	return reqCtx, func() { stopGrace(); cancelReqs() }
}

// endWithRun is reqCtx, canceled the grace period after end: a
// time-bounded step ends with its duration, and a request a stalled
// server holds is not left to run on to its own timeout (6 h by default;
// issue 28). Such a request fails as record.ErrCanceled, as an
// interrupted step's do: the cancel is a cancel, not a deadline, so
// backends class it so. stop releases the timer.
func (e *execution) endWithRun(reqCtx context.Context, end time.Time) (context.Context, func()) {
	ctx, cancel := context.WithCancel(reqCtx)
	t := time.AfterFunc(time.Until(end.Add(e.graceOrDefault())), cancel)
	return ctx, func() { t.Stop(); cancel() }
}

// warmupRequest is the request of the ready check and the warm-ups: the
// first one, without its id.
func (e *execution) warmupRequest() *backend.Request {
	w := e.p.Requests[0]
	w.ID = ""
	return &w
}

// prepare runs the ready check and the warm-ups. Neither affects metrics.
func (e *execution) prepare(ctx context.Context) error {
	p := e.p
	if len(p.Requests) == 0 {
		return errors.New("bench: no requests")
	}
	test := e.warmupRequest()
	if p.ReadyCheck > 0 {
		e.event("Waiting for endpoint to become up in %v seconds", p.ReadyCheck.Seconds())
		if err := readyCheck(ctx, e.send, test, p.ReadyCheck, e.readyInterval); err != nil {
			return fmt.Errorf("%w. Error: %v", ErrNotReady, err)
		}
		e.event("Initial test run completed.")
	} else {
		e.event("Skipping endpoint ready check.")
	}
	if p.NumWarmups > 0 {
		return e.warmUp(ctx, test)
	}
	return nil
}

// warmUp sends Plan.NumWarmups copies of test concurrently (bounded by
// Load.MaxConcurrency) and discards them.
func (e *execution) warmUp(ctx context.Context, test *backend.Request) error {
	n := e.p.NumWarmups
	e.event("Warming up with %d requests...", n)
	var mu sync.Mutex
	failed := 0
	var firstErr error
	load.Warmup(ctx, n, e.p.Load.MaxConcurrency, func(ctx context.Context, _ int) {
		var resp backend.Response
		e.send(ctx, test, &resp)
		if resp.Err != nil {
			mu.Lock()
			failed++
			if firstErr == nil {
				firstErr = resp.Err
			}
			mu.Unlock()
		}
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if failed > 0 {
		e.event("Warning: %d of %d warm-up requests failed (first error: %v)", failed, n, firstErr)
	}
	e.event("Warmup run completed.")
	return nil
}

// readyCheck implements vLLM's endpoint ready check (docs/metrics.md#ready-check): send req
// until one succeeds, waiting interval (0: 5 s, vLLM's value) between the
// starts of attempts, for at most timeout. The error carries the last
// failure.
func readyCheck(ctx context.Context, send func(context.Context, *backend.Request, *backend.Response), req *backend.Request, timeout, interval time.Duration) error {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	var last error
	for {
		var resp backend.Response
		began := time.Now()
		send(ctx, req, &resp)
		if resp.Err == nil {
			return nil
		}
		// An attempt cut short by the check's own deadline says less than
		// the failure before it.
		if last == nil || ctx.Err() == nil {
			last = resp.Err
		}
		t.Reset(time.Until(began.Add(interval)))
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("endpoint not ready after %v: %w", timeout, last)
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// sleep waits d or until ctx is done; false when ctx ended it.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
