package h1

import (
	"context"
	"reflect"
	"sync"
	"time"
)

// watch bounds the direct transport's raw exchanges by their deadline and
// their context without a timer or a context of their own: one ticker
// per transport finds the exchanges past their deadline, and one
// context.AfterFunc per context (a run's requests share one) the
// exchanges of a cancelled one; either sets a past deadline on the
// connection, as the cancellation hook of an exchange through net/http's
// types does. A context and a timer per request — the runner's timeout
// and the exchange's hook — were up to 3.7 % of the client's CPU at 1,000
// streams (a pending runtime timer also makes every scheduling round read
// the clock); the watch took 1.4 % off at 100 tokens a stream and 6 % at
// 2 (BENCHMARKS.md#timeouts-without-a-timer-per-request). A deadline
// fires up to one tick late: a hundredth of the request timeout, between
// 10 ms and 1 s.
type watch struct {
	mu     sync.Mutex
	bodies map[*directBody]struct{}
	ctxs   map[context.Context]*ctxWatch
	tick   time.Duration // the ticker's period; 0 when none runs
}

// ctxWatch is one watched context: how many exchanges run under it, and
// its hook.
type ctxWatch struct {
	n    int
	stop func() bool
}

// What ended an exchange early (directBody.fired).
const (
	firedNone uint32 = iota
	firedDeadline
	firedCancel
)

// Watchable says whether ctx can key the watch's map. Poster.Post sends
// a request under a context whose dynamic type is not comparable through
// the http.Client instead, bounded by context.AfterFunc.
func Watchable(ctx context.Context) bool {
	return reflect.TypeOf(ctx).Comparable()
}

// TickFor is the watch's tick for a request timeout: a hundredth of it,
// between 10 ms and 1 s (a Poster's tick).
func TickFor(timeout time.Duration) time.Duration {
	return min(max(timeout/100, 10*time.Millisecond), time.Second)
}

// add watches b (b.deadline, b.ctx) until remove.
func (w *watch) add(b *directBody, tick time.Duration) {
	w.mu.Lock()
	if w.bodies == nil {
		w.bodies, w.ctxs = map[*directBody]struct{}{}, map[context.Context]*ctxWatch{}
	}
	w.bodies[b] = struct{}{}
	cw := w.ctxs[b.ctx]
	if cw == nil {
		ctx := b.ctx
		cw = &ctxWatch{stop: context.AfterFunc(ctx, func() { w.cancel(ctx) })}
		w.ctxs[ctx] = cw
	}
	cw.n++
	if w.tick == 0 {
		w.tick = tick
		go w.run()
	} else if tick < w.tick {
		w.tick = tick // the ticker takes it at its next tick
	}
	w.mu.Unlock()
	if b.ctx.Err() != nil {
		w.cancel(b.ctx) // its hook may have run before b was added
	}
}

// remove stops watching b and reports whether its deadline or context
// ended it.
func (w *watch) remove(b *directBody) (fired bool) {
	w.mu.Lock()
	delete(w.bodies, b)
	if cw := w.ctxs[b.ctx]; cw != nil {
		if cw.n--; cw.n == 0 {
			cw.stop()
			delete(w.ctxs, b.ctx)
		}
	}
	w.mu.Unlock()
	return b.fired.Load() != firedNone
}

// cancel ends the exchanges under ctx.
func (w *watch) cancel(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for b := range w.bodies {
		if b.ctx == ctx {
			b.fire(firedCancel)
		}
	}
}

// run ends the exchanges past their deadline, once a tick, until none is
// watched.
func (w *watch) run() {
	w.mu.Lock()
	tick := w.tick
	w.mu.Unlock()
	t := time.NewTicker(tick)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.bodies) == 0 {
			w.tick = 0
			w.mu.Unlock()
			return
		}
		if w.tick != tick {
			tick = w.tick
			t.Reset(tick)
		}
		now := time.Now()
		for b := range w.bodies {
			if now.After(b.deadline) {
				b.fire(firedDeadline)
			}
		}
		w.mu.Unlock()
	}
}
