package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// Conversation is a multi-turn chat to replay: each turn's Prompt is the
// user's next message and MaxTokens its answer length; Messages is built
// as the turn is sent, from the earlier turns and the model's actual
// answers.
type Conversation struct {
	Turns []backend.Request
}

// conversations is the multi-turn executor: it replays
// Plan.Conversations with Load.MaxConcurrency users (vLLM's
// max-active-conversations; 0 = all), each taking the next conversation
// and sending its turns in order, each with the whole history — earlier
// user messages and the answers the server actually streamed — thinking
// TurnThink between turns (draws seeded by Load.Arrivals.Seed). A failed
// turn ends its conversation (the rest could not be sent honestly).
// Records carry the conversation and turn (1-based) and a global dispatch
// index. Interrupts behave as in openLoop.
func (e *execution) conversations(ctx context.Context) (*Outcome, error) {
	convs := e.p.Conversations
	if len(convs) == 0 {
		return nil, errors.New("bench: no conversations")
	}
	reqCtx, stop := e.graceContext(ctx)
	defer stop()
	origin := e.start()
	active := e.p.Load.MaxConcurrency
	if active <= 0 || active > len(convs) {
		active = len(convs)
	}
	c := &convRun{e: e, origin: origin, reqCtx: reqCtx, doneCh: make(chan record.Record, 1024)}
	collected := make(chan struct{})
	go c.collect(collected)
	var wg sync.WaitGroup
	for u := range active {
		wg.Go(func() { c.user(ctx, u) })
	}
	wg.Wait()
	close(c.doneCh)
	<-collected
	end := time.Now()
	slices.SortFunc(c.recs, func(a, b record.Record) int { return a.Index - b.Index })
	return &Outcome{Records: c.recs, Start: origin, Duration: end.Sub(origin), Interrupted: ctx.Err() != nil}, nil
}

// convRun is the state of one conversations call.
type convRun struct {
	e      *execution
	origin time.Time
	reqCtx context.Context
	next   atomic.Int64 // next conversation to start
	index  atomic.Int64 // next dispatch index
	doneCh chan record.Record
	recs   []record.Record // owned by collect
}

// user takes conversations until none is left or ctx is done.
func (c *convRun) user(ctx context.Context, u int) {
	rng := rand.New(rand.NewPCG(uint64(c.e.p.Load.Arrivals.Seed), uint64(u)))
	for ctx.Err() == nil {
		i := int(c.next.Add(1)) - 1
		if i >= len(c.e.p.Conversations) {
			return
		}
		c.converse(ctx, i, rng)
	}
}

// converse sends conversation i's turns in order.
func (c *convRun) converse(ctx context.Context, i int, rng *rand.Rand) {
	var history []map[string]any
	for k, turn := range c.e.p.Conversations[i].Turns {
		if k > 0 && !sleep(ctx, c.e.p.TurnThink.Draw(rng)) {
			return
		}
		if ctx.Err() != nil {
			return
		}
		msgs := append(slices.Clone(history), map[string]any{"role": "user", "content": turn.Prompt})
		req := turn
		req.Messages = msgs
		req.Index = int(c.index.Add(1)) - 1
		now := time.Now()
		var resp backend.Response
		c.e.send(c.reqCtx, &req, &resp)
		r := toRecord(&req, &resp, c.origin, load.Item{Index: req.Index, Intended: now, Arrived: now, Acquired: now})
		r.Conversation, r.Turn = i+1, k+1
		c.doneCh <- r
		if !r.Success {
			return
		}
		history = append(msgs, map[string]any{"role": "assistant", "content": resp.Text})
	}
}

// collect hands each record to the execution's collect and keeps it, on
// one goroutine off every request's path (as openLoop does).
func (c *convRun) collect(done chan<- struct{}) {
	defer close(done)
	for r := range c.doneCh {
		c.e.collect(&r)
		c.recs = append(c.recs, r)
	}
}
