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
	"github.com/llmbench/llmbench/internal/runner"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// Hooks are a step's observers. Every field is optional.
type Hooks struct {
	// OnEvent receives one-line notes on the phases ("Warmup run
	// completed.").
	OnEvent func(msg string)
	// OnStart is called with the instant dispatch starts (after the
	// warm-ups), just before the first request goes out.
	OnStart func(start time.Time)
	// OnRecord sees each record as it completes, from one goroutine that
	// is not on any request's path (progress, live metrics). It must not
	// block for long.
	OnRecord func(r *record.Record)
	// OpenRecords, when set, is called after the warm-ups, just before
	// dispatch, with the header of the records file (params known so far
	// and the wall-clock anchor); each record is added to the stream it
	// returns as it completes. The caller closes the stream (Outcome.Stream)
	// once the final params are known.
	OpenRecords func(h record.Header) (*record.Stream, error)
	// InFlight, when set, counts requests in flight (warm-ups included)
	// for live metrics; see runner.Config.InFlight.
	InFlight *atomic.Int64
	// OnOutcome, when set, sees the step's outcome (self-check included)
	// once the timed run is over.
	OnOutcome func(o *Outcome)
	// BeforeStart, when set, is called after the warm-ups and the
	// preconnect, before the wait for Plan.StartAt and the clock's origin:
	// what it costs (a server-metrics scrape that marks the window's start,
	// a prefix-cache reset) delays the timed run without entering any of
	// its figures.
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
	// Stream is the records stream OpenRecords returned (nil without).
	Stream *record.Stream
	// StreamErr is the first error writing Stream; the run went on.
	StreamErr error
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

// Execute runs the ready check, the warm-ups and the timed run of p.
func Execute(ctx context.Context, p *Plan, h Hooks) (*Outcome, error) {
	offsets, ramp, err := schedule(p)
	if err != nil {
		return nil, err
	}
	smp := newSampler()
	rc := &runner.Config{
		Backend:        p.Backend,
		Requests:       p.Requests,
		Schedule:       offsets,
		MaxConcurrency: p.Load.MaxConcurrency,
		Duration:       p.Load.Duration,
		NumWarmups:     p.NumWarmups,
		RequestTimeout: p.RequestTimeout,
		ReadyCheck:     p.ReadyCheck,
		OnEvent:        h.OnEvent,
		InFlight:       h.InFlight,
	}
	if err := runner.Prepare(ctx, rc); err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterruptedEarly
		}
		return nil, err
	}
	out := &Outcome{RampEvents: ramp}
	if out.Preconnected, err = preconnect(ctx, p, h); err != nil {
		return nil, err
	}
	if h.BeforeStart != nil {
		h.BeforeStart()
	}
	if !p.StartAt.IsZero() {
		out.Late = max(0, time.Since(p.StartAt))
	}
	if err := waitUntil(ctx, p.StartAt); err != nil { // distributed runs: share.go
		return nil, ErrInterruptedEarly
	}
	smp.start()
	rc.Origin = time.Now()
	if h.OpenRecords != nil {
		anchor := &record.Anchor{UnixNano: rc.Origin.UnixNano()}
		if out.Stream, err = h.OpenRecords(record.Header{Params: p.Params, Start: anchor}); err != nil {
			return nil, err
		}
	}
	// The connection counter rides on the run's context, which every
	// request's derives from: set once, not per request (three
	// allocations each at 1,000 streams).
	runCtx, abort := context.WithCancelCause(httptrace.WithClientTrace(ctx, smp.trace))
	defer abort(nil)
	watch := &failWatch{n: p.AbortAfter, abort: abort}
	rc.OnDone = func(r *record.Record) {
		out.observe(p, h, r)
		watch.see(r)
	}
	ctx = runCtx
	if h.OnStart != nil {
		h.OnStart(rc.Origin)
	}
	var res *runner.Result
	if p.Conversations != nil {
		res, err = runner.RunConversations(ctx, rc, p.Conversations,
			runner.Conversations{Active: p.Load.MaxConcurrency, Think: p.TurnThink, Seed: uint64(p.Load.Arrivals.Seed)})
	} else if u := p.Load.Users; u != nil {
		uu, n := *u, len(p.Requests)
		if p.Load.Duration > 0 {
			uu.Duration, n = p.Load.Duration, 0
		}
		res, err = runner.RunUsers(ctx, rc, uu, n)
	} else {
		res, err = runner.Run(ctx, rc)
	}
	if err != nil {
		return nil, err
	}
	out.SelfCheck = smp.stop(p, res.Records)
	out.Verdict = selfcheck.Judge(out.SelfCheck, selfcheck.DefaultThresholds)
	if e := (*EndpointError)(nil); errors.As(context.Cause(runCtx), &e) {
		return nil, e
	}
	out.Records, out.Start, out.Duration = res.Records, res.Start, res.Duration
	out.Interrupted, out.NotSent = res.Interrupted, res.NotSent
	if h.OnOutcome != nil {
		h.OnOutcome(out)
	}
	return out, nil
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

// observe runs on the runner's collector goroutine for each record: it
// counts the text of a stream that sent no usage (so a saved record
// recomputes without the tokenizer), streams the record to disk and
// hands it to OnRecord.
func (o *Outcome) observe(p *Plan, h Hooks, r *record.Record) {
	if p.Tokenizer != nil && r.Success && (r.OutputTokens == nil || *r.OutputTokens == 0) {
		r.TokenizerCount = p.Tokenizer.CountTokens(r.GeneratedText)
		r.OutputTokensSource = record.SourceTokenizer
	}
	redactAnswer(p.Backend, r) // after the count: the text as the server sent it
	r.Worker = p.Worker
	if o.Stream != nil && o.StreamErr == nil {
		o.StreamErr = o.Stream.Add(r)
	}
	if h.OnRecord != nil {
		h.OnRecord(r)
	}
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
	plan, err := load.Schedule(len(p.Requests), p.Load.Arrivals)
	if err != nil {
		return nil, nil, err
	}
	a := p.Load.Arrivals
	if a.RampStrategy == "" {
		return plan.Offsets, nil, nil
	}
	return plan.Offsets, load.RPSChanges(a.RampStartRPS, plan.Rates, plan.Offsets), nil
}
