package bench

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// spySink notes what a Sink is told.
type spySink struct {
	beginErr error

	mu      sync.Mutex
	began   int
	start   time.Time
	header  record.Header
	records int
	ends    []*Outcome
}

func (s *spySink) Begin(start time.Time, h record.Header) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.began++
	s.start, s.header = start, h
	return s.beginErr
}

func (s *spySink) Record(*record.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records++
}

func (s *spySink) End(o *Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends = append(s.ends, o)
}

// TestSinksFanOut: every sink of a fan-out sees the begin, every record
// and the end — the end included: none replaces another's (the old
// OnOutcome hook had one slot, and live metrics took it) — and nil
// entries are skipped. A sink that fails to begin stops the fan-out; those
// begun before it are ended with no outcome, the rest never begin.
func TestSinksFanOut(t *testing.T) {
	t.Parallel()
	o := &Outcome{NotSent: 1}
	t.Run("every sink sees everything", func(t *testing.T) {
		a, b := &spySink{}, &spySink{}
		ss := Sinks{a, nil, b}
		if err := ss.Begin(time.Now(), record.Header{}); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			ss.Record(&record.Record{})
		}
		ss.End(o)
		for name, s := range map[string]*spySink{"first": a, "second": b} {
			if s.began != 1 || s.records != 3 || len(s.ends) != 1 || s.ends[0] != o {
				t.Errorf("%s sink: began %d, %d records, ends %v; want 1, 3, the outcome once", name, s.began, s.records, s.ends)
			}
		}
	})
	t.Run("a sink that cannot begin", func(t *testing.T) {
		fail := errors.New("disk full")
		a, b, c := &spySink{}, &spySink{beginErr: fail}, &spySink{}
		if err := (Sinks{a, b, c}).Begin(time.Now(), record.Header{}); !errors.Is(err, fail) {
			t.Fatalf("Begin: %v, want %v", err, fail)
		}
		if len(a.ends) != 1 || a.ends[0] != nil {
			t.Errorf("the sink begun before the failure: ends %v, want one End(nil)", a.ends)
		}
		if len(b.ends) != 0 || c.began != 0 || len(c.ends) != 0 {
			t.Errorf("failing sink ended %d times; next sink began %d, ended %d times; want 0, 0, 0", len(b.ends), c.began, len(c.ends))
		}
	})
}

// refusingBackend fails every request at once as a refused connection.
type refusingBackend struct{}

func (refusingBackend) Send(_ context.Context, _ *backend.Request, resp *backend.Response) {
	resp.Start = time.Now()
	resp.Err, resp.ErrClass = errors.New("connect: connection refused"), record.ErrConnection
}

// TestExecuteSinksSeeTheStep: Execute hands its sinks the begin (the
// records header anchored at the start), every record and the outcome —
// or, when the step stops early, an end with no outcome.
func TestExecuteSinksSeeTheStep(t *testing.T) {
	t.Parallel()
	n := 6
	reqs := make([]backend.Request, 20)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, MaxTokens: 2}
	}
	for _, tt := range []struct {
		name    string
		plan    Plan
		records int
		ok      bool // an outcome, not an error
	}{
		{"a step that ends", Plan{Backend: instantBackend{chunks: 2}, Requests: reqs[:n],
			Params: record.Params{NumPrompts: &n}}, n, true},
		{"a step stopped early", Plan{Backend: refusingBackend{}, Requests: reqs, AbortAfter: 5,
			Load: Load{Arrivals: load.Arrivals{Rate: 100, Burstiness: 1}, MaxConcurrency: 1}}, 5, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.plan.Load.Arrivals.Rate == 0 {
				tt.plan.Load.Arrivals = load.Arrivals{Rate: math.Inf(1), Burstiness: 1}
			}
			a, b := &spySink{}, &spySink{}
			out, err := Execute(t.Context(), &tt.plan, Hooks{Sink: Sinks{a, b}})
			if (err == nil) != tt.ok {
				t.Fatalf("Execute: %v", err)
			}
			for name, s := range map[string]*spySink{"first": a, "second": b} {
				if s.began != 1 || s.header.Start == nil || s.header.Start.UnixNano != s.start.UnixNano() {
					t.Errorf("%s sink: began %d times, header anchor %v, start %v", name, s.began, s.header.Start, s.start)
				}
				if tt.ok && s.records != tt.records || !tt.ok && s.records < tt.records {
					t.Errorf("%s sink saw %d records, want %d", name, s.records, tt.records)
				}
				if len(s.ends) != 1 || s.ends[0] != out {
					t.Errorf("%s sink ended %d times, want once, with the outcome Execute returned (%p)", name, len(s.ends), out)
				}
			}
		})
	}
}
