package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// openLoop is the open-loop executor: requests go out at the offsets of
// the schedule from origin (a slow server never delays it), at most
// Load.MaxConcurrency at once, and for at most Load.Duration when set
// (requests not yet sent by then count as not sent; those in flight
// finish, or are canceled the grace period after it: endWithRun). Records
// come back in dispatch order; collect sees each one as it finishes, from
// one goroutine.
//
// When ctx is cancelled (Ctrl-C) dispatch stops at once; requests in
// flight get the grace period to finish before their contexts are
// cancelled too, and what they measured is kept. The Outcome is then
// marked Interrupted.
func (e *execution) openLoop(ctx context.Context) (*Outcome, error) {
	reqs := e.p.Requests
	n := len(reqs)
	if n == 0 {
		return nil, errors.New("bench: no requests")
	}
	offsets := e.offsets
	if offsets == nil {
		offsets = make([]time.Duration, n)
	}
	if len(offsets) != n {
		return nil, fmt.Errorf("bench: %d requests but %d schedule offsets", n, len(offsets))
	}
	reqCtx, stop := e.graceContext(ctx)
	defer stop()

	// Each request writes its own record (distinct indices, no lock) and
	// hands the index to one collector goroutine, so sinks never run on a
	// request's path. The channel holds every index: a stalled sink must
	// not keep a finished request in its concurrency slot.
	recs := make([]record.Record, n)
	sent := make([]bool, n)
	doneCh := make(chan int, n)
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for i := range doneCh {
			e.collect(&recs[i])
		}
	}()

	origin := e.start()
	dispatchCtx := ctx
	if d := e.p.Load.Duration; d > 0 {
		var cancel context.CancelFunc
		dispatchCtx, cancel = context.WithDeadline(ctx, origin.Add(d))
		defer cancel()
		var stopAtEnd func()
		reqCtx, stopAtEnd = e.endWithRun(reqCtx, origin.Add(d))
		defer stopAtEnd()
	}
	lres := load.Run(dispatchCtx, offsets, load.Options{MaxConcurrency: e.p.Load.MaxConcurrency, Start: origin},
		func(_ context.Context, it load.Item) {
			req := &reqs[it.Index]
			var resp backend.Response
			e.send(reqCtx, req, &resp)
			storeRecord(&recs[it.Index], req, &resp, origin, it)
			sent[it.Index] = true
			doneCh <- it.Index
		})
	close(doneCh)
	<-collected

	out := &Outcome{Start: lres.Start, Duration: lres.End.Sub(lres.Start), Interrupted: ctx.Err() != nil}
	out.Records = make([]record.Record, 0, n)
	for i := range recs {
		if sent[i] {
			out.Records = append(out.Records, recs[i])
		}
	}
	out.NotSent = n - len(out.Records)
	if out.NotSent > 0 && ctx.Err() != nil {
		out.Interrupted = true
	}
	return out, nil
}
