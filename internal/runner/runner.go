// Package runner drives one benchmark: ready check, warm-ups, the timed run
// (schedule -> dispatcher -> backend), and the conversion of what each
// request observed into records. It computes no metrics and prints nothing;
// progress is reported through a callback that runs off the request path.
package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// DefaultGrace is how long an interrupted run waits for requests already in
// flight before cancelling them.
const DefaultGrace = 5 * time.Second

// Config describes one run. Requests and Backend are required.
type Config struct {
	// Backend sends the requests.
	Backend backend.Backend
	// Requests are sent in order; Requests[i] is dispatched at Schedule[i].
	Requests []backend.Request
	// Schedule holds each request's intended send offset from the start of
	// dispatch (non-decreasing); nil sends everything at once.
	Schedule []time.Duration
	// MaxConcurrency caps requests in flight; 0 = no cap.
	MaxConcurrency int
	// Warmup is the request sent for the ready check and the warm-ups; nil
	// means Requests[0] without its id.
	Warmup *backend.Request
	// NumWarmups copies of Warmup are sent concurrently (bounded by
	// MaxConcurrency) before the run and discarded.
	NumWarmups int
	// ReadyCheck, when > 0, retries Warmup every ReadyInterval until it
	// succeeds or ReadyCheck elapses; a final failure aborts the run.
	ReadyCheck    time.Duration
	ReadyInterval time.Duration
	// RequestTimeout bounds each request, stream included, whatever the
	// backend: timed requests, warm-ups and each ready check attempt; 0 =
	// no bound beyond the backend's own.
	RequestTimeout time.Duration
	// Grace bounds how long an interrupted run waits for requests in
	// flight; 0 = DefaultGrace.
	Grace time.Duration
	// OnDone, when set, is called after each request finishes, from a
	// single goroutine that is not on any request's path (progress bars,
	// live metrics). It must not block for long.
	OnDone func(r *record.Record)
	// Origin is the instant the schedule and the records' clock count
	// from; zero = time.Now() when Run starts. Set it to anchor the
	// records to a wall-clock time written before the run (a records
	// file's header). It must come from time.Now() (monotonic reading).
	Origin time.Time
	// Duration, when > 0, stops dispatch that long after Origin (requests
	// not yet sent are counted as not sent, those in flight finish); the
	// run is then complete, not interrupted.
	Duration time.Duration
	// InFlight, when set, counts the requests being sent or streamed (one
	// atomic add on each side of a request: cheap enough for the request
	// path); a sampler elsewhere reads it for live metrics.
	InFlight *atomic.Int64
	// OnEvent, when set, receives one-line notes on the run's phases
	// ("Starting initial single prompt test run...").
	OnEvent func(msg string)
}

// Result is what a run produced.
type Result struct {
	// Records holds one record per request that was sent, in dispatch
	// (dataset) order. Requests never sent (interrupted run) have none.
	Records []record.Record
	// Duration is vLLM's benchmark duration: from just before the first
	// dispatch to the end of the last request.
	Duration time.Duration
	// Start and End are the wall/monotonic times of the timed run.
	Start, End time.Time
	// Interrupted is true when the context was cancelled before every
	// request finished.
	Interrupted bool
	// NotSent counts requests that were never sent.
	NotSent int
}

// ErrNotReady wraps a failed ready check. The text is vLLM's, word for word.
//
//lint:ignore ST1005 vLLM's exact message, capital and all
var ErrNotReady = errors.New("Initial test run failed - Please make sure benchmark arguments are correctly specified")

func (c *Config) event(format string, a ...any) {
	if c.OnEvent != nil {
		c.OnEvent(fmt.Sprintf(format, a...))
	}
}

func (c *Config) warmupRequest() *backend.Request {
	if c.Warmup != nil {
		return c.Warmup
	}
	w := c.Requests[0]
	w.ID = ""
	return &w
}

// send sends req under RequestTimeout, if one is set (left to the
// backend when it bounds requests as tightly itself: backend.Bounder).
func (c *Config) send(ctx context.Context, req *backend.Request, resp *backend.Response) {
	if c.InFlight != nil {
		c.InFlight.Add(1)
		defer c.InFlight.Add(-1)
	}
	if b, ok := c.Backend.(backend.Bounder); c.RequestTimeout > 0 && !(ok && b.Bounds(c.RequestTimeout)) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.RequestTimeout)
		defer cancel()
	}
	c.Backend.Send(ctx, req, resp)
}

// graceContext is the context requests run under: it outlives ctx by the
// grace period (Grace, or DefaultGrace), so that an interrupt does not
// throw away streams about to finish. stop releases it.
func (c *Config) graceContext(ctx context.Context) (reqCtx context.Context, stop func()) {
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancelReqs)
		<-reqCtx.Done()
		t.Stop()
	})
	return reqCtx, func() { stopGrace(); cancelReqs() }
}

// endWithRun is reqCtx, canceled Grace (or DefaultGrace) after end: a
// time-bounded run ends with its duration, and a request a stalled server
// holds is not left to run on to its own timeout (6 h by default; issue
// 28). Such a request fails as record.ErrCanceled, as an interrupted run's
// do: the cancel is a cancel, not a deadline, so backends class it so.
// stop releases the timer.
func (c *Config) endWithRun(reqCtx context.Context, end time.Time) (context.Context, func()) {
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	ctx, cancel := context.WithCancel(reqCtx)
	t := time.AfterFunc(time.Until(end.Add(grace)), cancel)
	return ctx, func() { t.Stop(); cancel() }
}

// Connection back-off of closed-loop users (RunUsers): after
// backoffAfter consecutive connection failures a user waits before its
// next request, backoffFirst doubling up to backoffMax, so that users of
// a server that went away do not re-send at the speed of a refused
// connect (issue 29: 60,339 requests in ~2 s to a dead port, every one a
// failure in the step).
const (
	backoffAfter = 2
	backoffFirst = 50 * time.Millisecond
	backoffMax   = time.Second
)

// backoff is the wait after n consecutive connection failures (0 below
// backoffAfter).
func backoff(n int) time.Duration {
	if n < backoffAfter {
		return 0
	}
	d := backoffFirst
	for i := backoffAfter; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Prepare runs the ready check and the warm-ups. Neither affects metrics.
func Prepare(ctx context.Context, cfg *Config) error {
	if len(cfg.Requests) == 0 {
		return errors.New("runner: no requests")
	}
	test := cfg.warmupRequest()
	if cfg.ReadyCheck > 0 {
		cfg.event("Waiting for endpoint to become up in %v seconds", cfg.ReadyCheck.Seconds())
		if err := readyCheck(ctx, cfg.send, test, cfg.ReadyCheck, cfg.ReadyInterval); err != nil {
			return fmt.Errorf("%w. Error: %v", ErrNotReady, err)
		}
		cfg.event("Initial test run completed.")
	} else {
		cfg.event("Skipping endpoint ready check.")
	}
	if cfg.NumWarmups > 0 {
		cfg.event("Warming up with %d requests...", cfg.NumWarmups)
		var mu sync.Mutex
		failed := 0
		var firstErr error
		load.Warmup(ctx, cfg.NumWarmups, cfg.MaxConcurrency, func(ctx context.Context, _ int) {
			var resp backend.Response
			cfg.send(ctx, test, &resp)
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
			cfg.event("Warning: %d of %d warm-up requests failed (first error: %v)", failed, cfg.NumWarmups, firstErr)
		}
		cfg.event("Warmup run completed.")
	}
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

// Run performs the timed run: requests go out at Schedule's offsets from
// the start of dispatch, open loop (a slow server never delays the
// schedule), at most MaxConcurrency at once. Records come back in dispatch
// order; OnDone sees each one as it finishes, from one goroutine.
//
// When ctx is cancelled (Ctrl-C) dispatch stops at once; requests in flight
// get Grace to finish before their contexts are cancelled too, and what
// they measured is kept. The Result is then marked Interrupted.
func Run(ctx context.Context, cfg *Config) (*Result, error) {
	n := len(cfg.Requests)
	if n == 0 {
		return nil, errors.New("runner: no requests")
	}
	offsets := cfg.Schedule
	if offsets == nil {
		offsets = make([]time.Duration, n)
	}
	if len(offsets) != n {
		return nil, fmt.Errorf("runner: %d requests but %d schedule offsets", n, len(offsets))
	}
	reqCtx, stop := cfg.graceContext(ctx)
	defer stop()

	// Each request writes its own record (distinct indices, no lock) and
	// hands the index to one collector goroutine, so progress callbacks
	// never run on a request's path. The channel holds every index: a
	// stalled callback must not keep a finished request in its
	// concurrency slot.
	recs := make([]record.Record, n)
	sent := make([]bool, n)
	doneCh := make(chan int, n)
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for i := range doneCh {
			if cfg.OnDone != nil {
				cfg.OnDone(&recs[i])
			}
		}
	}()

	origin := cfg.Origin
	if origin.IsZero() {
		origin = time.Now()
	}
	dispatchCtx := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		dispatchCtx, cancel = context.WithDeadline(ctx, origin.Add(cfg.Duration))
		defer cancel()
		var stopAtEnd func()
		reqCtx, stopAtEnd = cfg.endWithRun(reqCtx, origin.Add(cfg.Duration))
		defer stopAtEnd()
	}
	lres := load.Run(dispatchCtx, offsets, load.Options{MaxConcurrency: cfg.MaxConcurrency, Start: origin},
		func(_ context.Context, it load.Item) {
			req := &cfg.Requests[it.Index]
			var resp backend.Response
			cfg.send(reqCtx, req, &resp)
			storeRecord(&recs[it.Index], req, &resp, origin, it)
			sent[it.Index] = true
			doneCh <- it.Index
		})
	close(doneCh)
	<-collected

	res := &Result{
		Start:       lres.Start,
		End:         lres.End,
		Duration:    lres.End.Sub(lres.Start),
		Interrupted: ctx.Err() != nil,
	}
	res.Records = make([]record.Record, 0, n)
	for i := range recs {
		if sent[i] {
			res.Records = append(res.Records, recs[i])
		}
	}
	res.NotSent = n - len(res.Records)
	if res.NotSent > 0 && ctx.Err() != nil {
		res.Interrupted = true
	}
	return res, nil
}

// RunUsers performs a closed-loop run: u.Users virtual users each send a
// request, read its whole stream, think, and repeat (load.RunUsers),
// taking cfg.Requests in turn (cycled). n bounds the number of requests
// (0 = only u.Duration and ctx bound the run). Requests in the warm-up
// window are sent but left out of the records. Interrupts behave as in
// Run; with u.Duration, requests still in flight Grace after it are
// canceled (endWithRun). A user whose requests fail to connect backoffAfter
// times in a row waits before the next (backoff).
func RunUsers(ctx context.Context, cfg *Config, u load.Users, n int) (*Result, error) {
	if len(cfg.Requests) == 0 {
		return nil, errors.New("runner: no requests")
	}
	reqCtx, stop := cfg.graceContext(ctx)
	defer stop()
	if u.Duration > 0 {
		origin := cfg.Origin
		if origin.IsZero() {
			origin = time.Now()
		}
		var stopAtEnd func()
		reqCtx, stopAtEnd = cfg.endWithRun(reqCtx, origin.Add(u.Duration))
		defer stopAtEnd()
	}
	// Each user's run of connection failures, touched by that user's
	// goroutine only.
	refused := make([]int, u.Users)

	var mu sync.Mutex
	var recs []record.Record
	doneCh := make(chan *record.Record, 1024)
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for r := range doneCh {
			if cfg.OnDone != nil {
				cfg.OnDone(r)
			}
			mu.Lock()
			recs = append(recs, *r)
			mu.Unlock()
		}
	}()
	origin := cfg.Origin
	if origin.IsZero() {
		origin = time.Now()
	}
	started := time.Now()
	_, err := load.RunUsers(ctx, n, u, func(_ context.Context, it load.Item) {
		req := cfg.Requests[it.Index%len(cfg.Requests)]
		req.Index = it.Index
		var resp backend.Response
		cfg.send(reqCtx, &req, &resp)
		if resp.Err != nil && resp.ErrClass == record.ErrConnection {
			refused[it.User]++
			defer sleepCtx(ctx, backoff(refused[it.User]))
		} else {
			refused[it.User] = 0
		}
		if it.Warmup {
			return
		}
		r := toRecord(&req, &resp, origin, it)
		r.User, r.ThinkTime = it.User+1, it.Think.Seconds()
		doneCh <- &r
	})
	close(doneCh)
	<-collected
	if err != nil {
		return nil, err
	}
	end := time.Now()
	slices.SortFunc(recs, func(a, b record.Record) int { return a.Index - b.Index })
	return &Result{Records: recs, Start: started, End: end, Duration: end.Sub(started), Interrupted: ctx.Err() != nil}, nil
}
