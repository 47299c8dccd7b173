package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// Hooks are what a caller plugs into a step: its observers (Sink) and
// three hooks that have no Sink form. Every field is optional.
type Hooks struct {
	// Sink sees the step begin, each record and the end (Sinks fans out
	// to several: the records file, progress, live metrics).
	Sink Sink
	// OnEvent receives one-line notes on the phases ("Warmup run
	// completed."). Not a Sink's: most notes come before the step begins
	// (ready check, warm-ups), and their reader is the console.
	OnEvent func(msg string)
	// InFlight, when set, counts the requests being sent or streamed,
	// warm-ups included (one atomic add on each side of a request: cheap
	// enough for the request path); a sampler elsewhere reads it for live
	// metrics. Not a Sink's: it is counted on the request path, where no
	// sink may run.
	InFlight *atomic.Int64
	// BeforeStart, when set, is called after the warm-ups and the
	// preconnect, before the wait for Plan.StartAt and the clock's origin:
	// what it costs (a server-metrics scrape that marks the window's start,
	// a prefix-cache reset) delays the timed run without entering any of
	// its figures. Not a Sink's: it acts before the step begins, and the
	// step waits for it.
	BeforeStart func()
}

// Outcome is what Execute measured.
type Outcome struct {
	// Records holds one record per request sent, in dispatch order.
	Records []record.Record
	// Start is the instant the schedule counted from (wall and
	// monotonic); Duration is vLLM's benchmark duration.
	Start    time.Time
	Duration time.Duration
	// Interrupted is true when ctx was cancelled (Ctrl-C) before every
	// request finished; NotSent counts requests never sent (interrupted,
	// or past Load.Duration).
	Interrupted bool
	NotSent     int
	// RampEvents are the ramp-up rate changes, relative to Start.
	RampEvents []load.RPSChange
	// SelfCheck is what the client measured about itself over the timed
	// run, and Verdict its judgement (docs/fidelity.md).
	SelfCheck selfcheck.Measurements
	Verdict   selfcheck.Result
	// Preconnected counts the connections Plan.Preconnect opened.
	Preconnected int
	// Late is how far past Plan.StartAt the step was when it was ready to
	// wait for it (ready check, warm-ups and connections done): 0 when it
	// was ready in time or has no StartAt. A late step starts at once, so
	// workers that share StartAt did not start together.
	Late time.Duration
}

// Preconnecter is a backend that can open its connections ahead of a run
// (openai.Client).
type Preconnecter interface {
	// Preconnect opens n connections and keeps them idle; it returns how
	// many the pool then holds.
	Preconnect(ctx context.Context, n int) (int, error)
}

// ErrInterruptedEarly is returned when ctx is cancelled before the timed
// run started (during the ready check or the warm-ups): nothing was
// measured.
var ErrInterruptedEarly = errors.New("interrupted before the benchmark started; nothing was measured")

// Execute runs the ready check, the warm-ups and the timed run of p with
// the executor its load asks for: open loop (openLoop), closed-loop users
// (users) or multi-turn conversations (conversations).
func Execute(ctx context.Context, p *Plan, h Hooks) (*Outcome, error) {
	offsets, ramp, err := schedule(p)
	if err != nil {
		return nil, err
	}
	e := &execution{p: p, offsets: offsets, onEvent: h.OnEvent, inFlight: h.InFlight}
	if err := e.prepare(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterruptedEarly
		}
		return nil, err
	}
	preconnected, err := preconnect(ctx, p, h)
	if err != nil {
		return nil, err
	}
	if h.BeforeStart != nil {
		h.BeforeStart()
	}
	var late time.Duration
	if !p.StartAt.IsZero() {
		late = max(0, time.Since(p.StartAt))
	}
	if err := waitUntil(ctx, p.StartAt); err != nil { // distributed runs: share.go
		return nil, ErrInterruptedEarly
	}
	out, err := e.timed(ctx, h.Sink)
	if err != nil {
		return nil, err
	}
	out.RampEvents, out.Preconnected, out.Late = ramp, preconnected, late
	if h.Sink != nil {
		h.Sink.End(out)
	}
	return out, nil
}

// timed runs the timed run with the plan's executor, between the sink's
// Begin and, when it fails, End(nil); the self-check covers it.
func (e *execution) timed(ctx context.Context, sink Sink) (*Outcome, error) {
	smp := newSampler()
	smp.start()
	e.origin = time.Now()
	if sink != nil {
		anchor := &record.Anchor{UnixNano: e.origin.UnixNano()}
		if err := sink.Begin(e.origin, record.Header{Params: e.p.Params, Start: anchor}); err != nil {
			return nil, err
		}
	}
	// The connection counter rides on the run's context, which every
	// request's derives from: set once, not per request (three
	// allocations each at 1,000 streams).
	runCtx, abort := context.WithCancelCause(httptrace.WithClientTrace(ctx, smp.trace))
	defer abort(nil)
	e.sink, e.watch = sink, &failWatch{n: e.p.AbortAfter, abort: abort}
	out, err := e.executor()(runCtx)
	if err == nil {
		out.SelfCheck = smp.stop(e.p, out.Records)
		out.Verdict = selfcheck.Judge(out.SelfCheck, selfcheck.DefaultThresholds)
		if ee := (*EndpointError)(nil); errors.As(context.Cause(runCtx), &ee) {
			err = ee
		}
	}
	if err != nil && sink != nil {
		sink.End(nil)
	}
	return out, err
}

// executor is the plan's executor (k6's lib/executor): conversations,
// closed-loop users or, by default, the open loop.
func (e *execution) executor() func(context.Context) (*Outcome, error) {
	switch {
	case e.p.Conversations != nil:
		return e.conversations
	case e.p.Load.Users != nil:
		return e.users
	}
	return e.openLoop
}

// preconnect opens the plan's connections when it asks for them: as many
// as requests can be in flight. A backend that cannot is noted, not an
// error; a failure to connect is.
func preconnect(ctx context.Context, p *Plan, h Hooks) (int, error) {
	if !p.Preconnect {
		return 0, nil
	}
	pc, ok := p.Backend.(Preconnecter)
	if !ok {
		if h.OnEvent != nil {
			h.OnEvent("Note: this backend cannot preconnect; connections open during the run.")
		}
		return 0, nil
	}
	n := len(p.Requests)
	if p.Load.MaxConcurrency > 0 {
		n = min(n, p.Load.MaxConcurrency)
	}
	if u := p.Load.Users; u != nil {
		n = u.Users
	}
	held, err := pc.Preconnect(ctx, n)
	if err != nil {
		return held, fmt.Errorf("preconnect: %d of %d connections open: %w", held, n, err)
	}
	if h.OnEvent != nil {
		h.OnEvent(fmt.Sprintf("Preconnected: %d connections open before the run.", held))
	}
	return held, nil
}

// schedule computes the intended send offsets with vLLM's arrival process
// and, under ramp-up, the rate changes.
func schedule(p *Plan) ([]time.Duration, []load.RPSChange, error) {
	if p.Load.Users != nil {
		return nil, nil, p.Load.Users.Validate()
	}
	if p.Conversations != nil {
		return nil, nil, nil // turns go out as their conversations allow
	}
	if p.Schedule != nil {
		if len(p.Schedule) != len(p.Requests) {
			return nil, nil, fmt.Errorf("bench: %d requests but %d schedule offsets", len(p.Requests), len(p.Schedule))
		}
		return p.Schedule, nil, nil
	}
	sched, err := load.Schedule(len(p.Requests), p.Load.Arrivals)
	if err != nil {
		return nil, nil, err
	}
	a := p.Load.Arrivals
	if a.RampStrategy == "" {
		return sched.Offsets, nil, nil
	}
	return sched.Offsets, load.RPSChanges(a.RampStartRPS, sched.Rates, sched.Offsets), nil
}
