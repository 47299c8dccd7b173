package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// Kind is the kind of endpoint a plan talks to.
type Kind int

// The backends, with vLLM's --backend names (see ParseKind).
const (
	// OpenAICompletions is /v1/completions (--backend openai or vllm).
	OpenAICompletions Kind = iota + 1
	// OpenAIChat is /v1/chat/completions (--backend openai-chat).
	OpenAIChat
	// SageMaker is InvokeEndpointWithResponseStream (--backend sagemaker).
	SageMaker
)

// ParseKind maps vLLM's --backend value to a Kind.
func ParseKind(name string) (Kind, error) {
	switch name {
	case "openai", "vllm":
		return OpenAICompletions, nil
	case "openai-chat":
		return OpenAIChat, nil
	case "sagemaker":
		return SageMaker, nil
	}
	return 0, fmt.Errorf("--backend %q: want openai, vllm, openai-chat or sagemaker", name)
}

// Load is how hard a step pushes: the arrival process and the cap on
// requests in flight.
type Load struct {
	// Arrivals is vLLM's arrival process (rate, burstiness, ramp-up,
	// seed); Rate +Inf sends everything at once.
	Arrivals load.Arrivals
	// MaxConcurrency caps requests in flight; 0 = no cap (the one
	// encoding of "no --max-concurrency").
	MaxConcurrency int
	// Duration, when > 0, stops dispatch that long after the start; the
	// requests not sent by then are not part of the step.
	Duration time.Duration
	// Users, when set, makes the step closed loop (load.RunUsers): its
	// users send, read the whole stream, think and repeat, cycling the
	// requests; Arrivals and MaxConcurrency are then unused. With
	// Duration the step runs for that long, else for len(Requests)
	// requests.
	Users *load.Users
}

// Plan is everything a step needs, resolved once.
type Plan struct {
	// Kind is the backend kind; Backend sends the requests.
	Kind    Kind
	Backend backend.Backend
	// Requests are sent in order; Step may cycle them.
	Requests []backend.Request
	// IDPrefix starts every request id (prefix + index).
	IDPrefix string
	// IDTag follows IDPrefix in every id when the plan is one of several
	// that share the prefix (a sweep's step, a run of run --runs: prefix +
	// tag + index, see Step and TagIDs); "" for a single run.
	IDTag string
	// Load is the arrival process and concurrency cap.
	Load Load
	// Conversations, when set, makes the step a multi-turn replay
	// (see conversations.go): Requests then holds only the first turns
	// (warm-ups use them), Load.MaxConcurrency is the number of active
	// conversations and TurnThink the pause between turns.
	Conversations []Conversation
	TurnThink     load.Think
	// Schedule, when non-nil, gives each request's send offset (a replayed
	// trace's timestamps) instead of Load.Arrivals.
	Schedule []time.Duration
	// NumWarmups, RequestTimeout and ReadyCheck are vLLM's
	// --num-warmups, our --request-timeout and --ready-check-timeout-sec
	// (0 = skip the check).
	NumWarmups     int
	RequestTimeout time.Duration
	ReadyCheck     time.Duration
	// Preconnect opens as many connections as requests can be in flight
	// before the timed run, when the backend can (Preconnecter), so TTFT
	// leaves out connection set-up (docs/fidelity.md). Off by default, as
	// in vLLM, whose TTFT includes it.
	Preconnect bool
	// AbortAfter, when > 0, stops the step as soon as the first
	// AbortAfter requests to finish have all failed with the same class
	// of a misconfiguration (connection refused, HTTP 4xx other than 429):
	// the rest would fail the same way. Execute then returns an
	// *EndpointError.
	AbortAfter int
	// Tokenizer counts the text of streams without usage; nil = none.
	Tokenizer *tokenizer.Tokenizer
	// Params describe the run for metrics and reports as far as they are
	// known before dispatch; Summarize fills the rest (duration, date,
	// interrupted, ramp-up events).
	Params record.Params
	// StartAt, when set, is the wall-clock instant dispatch starts: the
	// ready check and warm-ups run first, then Execute waits for it (at
	// once if it has passed). Workers of a distributed run share it
	// (docs/distributed.md).
	StartAt time.Time
	// ConnLimit is the most connections the backend opens at once (its
	// pool's cap, e.g. openai.Config.MaxConcurrency); 0 = no cap. The
	// self-check compares a closed loop's users with it: a pool smaller
	// than the loop holds fewer requests on the wire than asked.
	ConnLimit int
	// Worker is stamped on every record (record.Record.Worker: the
	// worker index plus one); 0 for a single process. See Share.
	Worker int
}

// Step returns a copy of p with load l and n requests: p's requests in
// order, cycled when n exceeds them, each with its own index and id
// (prefix + tag + index: the tag names the step, so that the steps of a
// sweep, which share the prefix, never send the same id; docs/records.md).
// The sweep calls it once per load level.
func (p *Plan) Step(l Load, n int, tag string) *Plan {
	q := *p
	q.Load, q.Schedule, q.IDTag = l, nil, tag
	q.Requests = make([]backend.Request, n)
	for i := range n {
		r := p.Requests[i%len(p.Requests)]
		r.Index = i
		r.ID = q.RequestID(i)
		q.Requests[i] = r
	}
	np := n
	q.Params.NumPrompts = &np
	q.Params.RequestRate = record.Rate(l.Arrivals.Rate)
	q.Params.Burstiness = record.Rate(l.Arrivals.Burstiness)
	q.Params.MaxConcurrency = nil
	if l.Users != nil {
		c := l.Users.Users // at most this many in flight
		q.Params.MaxConcurrency = &c
		q.Params.RequestRate = record.Inf
	} else if l.MaxConcurrency > 0 {
		c := l.MaxConcurrency
		q.Params.MaxConcurrency = &c
	}
	return &q
}

// RequestID is the id of the plan's request of index i: the prefix, the
// tag and the index (docs/records.md, "Joining runs and server logs").
func (p *Plan) RequestID(i int) string { return p.IDPrefix + p.IDTag + strconv.Itoa(i) }

// Expected is how many records the timed run of p makes, for a progress
// bar: one per request, one per turn of its conversations, and 0 (not
// known) when a time bound ends it.
func (p *Plan) Expected() int {
	switch {
	case p.Load.Duration > 0:
		return 0
	case p.Conversations != nil:
		return *p.Params.NumPrompts // every turn of every conversation
	}
	return len(p.Requests)
}

// TagIDs puts tag after the id prefix of every request of p and every
// turn of its conversations, in place of the tag put there before (see
// IDTag): with tag "run2-", "bench-1a2b3c4d-17" and
// "bench-1a2b3c4d-run1-17" both become "bench-1a2b3c4d-run2-17". The
// runs of run --runs share one plan and its prefix; the tag tells their
// requests apart in a server's log (docs/records.md). The requests are
// copied, not changed where they are shared.
func (p *Plan) TagIDs(tag string) {
	retag := func(rs []backend.Request) []backend.Request {
		out := slices.Clone(rs)
		for i := range out {
			rest := strings.TrimPrefix(strings.TrimPrefix(out[i].ID, p.IDPrefix), p.IDTag)
			out[i].ID = p.IDPrefix + tag + rest
		}
		return out
	}
	p.Requests = retag(p.Requests)
	if p.Conversations != nil {
		convs := make([]Conversation, len(p.Conversations))
		for i, c := range p.Conversations {
			convs[i].Turns = retag(c.Turns)
		}
		p.Conversations = convs
	}
	p.IDTag = tag
}
