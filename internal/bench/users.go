package bench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// Connection back-off of closed-loop users: after backoffAfter
// consecutive connection failures a user waits before its next request,
// backoffFirst doubling up to backoffMax, so that users of a server that
// went away do not re-send at the speed of a refused connect (issue 29:
// 60,339 requests in ~2 s to a dead port, every one a failure in the
// step).
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

// usersLoad is the closed loop the plan asks for and the number of
// requests that bounds it: with Load.Duration the loop runs for that
// long (0 requests: no bound but time), else for len(Requests) requests.
func (p *Plan) usersLoad() (load.Users, int) {
	u, n := *p.Load.Users, len(p.Requests)
	if p.Load.Duration > 0 {
		u.Duration, n = p.Load.Duration, 0
	}
	return u, n
}

// users is the closed-loop executor: Load.Users virtual users each send a
// request, read its whole stream, think, and repeat (load.RunUsers),
// taking the plan's requests in turn (cycled). Requests in the warm-up
// window are sent but left out of the records. Interrupts behave as in
// openLoop; with a duration, requests still in flight the grace period
// after it are canceled (endWithRun). A user whose requests fail to
// connect backoffAfter times in a row waits before the next (backoff).
func (e *execution) users(ctx context.Context) (*Outcome, error) {
	reqs := e.p.Requests
	if len(reqs) == 0 {
		return nil, errors.New("bench: no requests")
	}
	u, n := e.p.usersLoad()
	reqCtx, stop := e.graceContext(ctx)
	defer stop()
	origin := e.start()
	if u.Duration > 0 {
		var stopAtEnd func()
		reqCtx, stopAtEnd = e.endWithRun(reqCtx, origin.Add(u.Duration))
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
			e.collect(r)
			mu.Lock()
			recs = append(recs, *r)
			mu.Unlock()
		}
	}()
	started := time.Now()
	_, err := load.RunUsers(ctx, n, u, func(_ context.Context, it load.Item) {
		req := reqs[it.Index%len(reqs)]
		if it.Index >= len(reqs) { // cycled: a new request, its own id
			req.ID = e.p.RequestID(it.Index)
		}
		req.Index = it.Index
		var resp backend.Response
		e.send(reqCtx, &req, &resp)
		if resp.Err != nil && resp.ErrClass == record.ErrConnection {
			refused[it.User]++
			defer sleep(ctx, backoff(refused[it.User]))
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
	return &Outcome{Records: recs, Start: started, Duration: end.Sub(started), Interrupted: ctx.Err() != nil}, nil
}
