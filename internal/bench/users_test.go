package bench

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// refusedBackend fails every request at once as a refused connection,
// as a dead port does.
type refusedBackend struct{ calls atomic.Int64 }

func (b *refusedBackend) Send(_ context.Context, _ *backend.Request, resp *backend.Response) {
	b.calls.Add(1)
	resp.Start = time.Now()
	resp.Err, resp.ErrClass = errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), record.ErrConnection
}

// TestUsersBackOffOnDeadPort: closed-loop users of a dead port wait
// after consecutive connection failures instead of re-sending at the
// speed of a refused connect (issue 29: 60,339 requests in ~2 s). Four
// users over 1 s send 2 at once each, then wait 50, 100, 200, 400 ms:
// about 6 each; without the back-off, thousands.
func TestUsersBackOffOnDeadPort(t *testing.T) {
	t.Parallel()
	be := &refusedBackend{}
	e := &execution{p: &Plan{Backend: be, Requests: requests(4), Load: Load{Users: &load.Users{Users: 4}, Duration: time.Second}}}
	res, err := e.users(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := be.calls.Load(); n > 4*8 || n < 4*2 {
		t.Errorf("%d requests to a dead port from 4 users in 1 s, want 8..32", n)
	}
	if len(res.Records) != int(be.calls.Load()) {
		t.Errorf("%d records for %d requests", len(res.Records), be.calls.Load())
	}
}

// stallBackend sends the head and never a token: the request runs until
// its context ends.
type stallBackend struct{}

func (stallBackend) Send(ctx context.Context, _ *backend.Request, resp *backend.Response) {
	resp.Start = time.Now()
	<-ctx.Done()
	resp.Err, resp.ErrClass = ctx.Err(), record.ErrCanceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		resp.ErrClass = record.ErrTimeout
	}
}

// TestDurationEndsStalledRequests: a time-bounded run ends with its
// duration: requests a stalled server holds are canceled Grace after it
// (issue 28: they ran on to the 6 h request timeout), counted as failed,
// class canceled, open loop and closed loop alike.
func TestDurationEndsStalledRequests(t *testing.T) {
	t.Parallel()
	run := map[string]func(e *execution) (*Outcome, error){
		"open loop": func(e *execution) (*Outcome, error) {
			e.p.Load.Duration = 200 * time.Millisecond
			return e.openLoop(t.Context())
		},
		"users": func(e *execution) (*Outcome, error) {
			e.p.Load = Load{Users: &load.Users{Users: 3}, Duration: 200 * time.Millisecond}
			return e.users(t.Context())
		},
	}
	for name, f := range run {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := &execution{p: &Plan{Backend: stallBackend{}, Requests: requests(3)}, grace: 100 * time.Millisecond}
			done := make(chan struct{})
			var res *Outcome
			var err error
			go func() { res, err = f(e); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second): // "does not hang" only
				t.Fatal("the run did not end with its duration")
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != 3 || res.Interrupted {
				t.Fatalf("%d records, interrupted %v; want 3, not interrupted", len(res.Records), res.Interrupted)
			}
			for _, r := range res.Records {
				if r.Success || r.ErrorClass != record.ErrCanceled {
					t.Errorf("record %d: success %v class %q, want a canceled failure", r.Index, r.Success, r.ErrorClass)
				}
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]time.Duration{0: 0, 1: 0, 2: 50 * time.Millisecond, 3: 100 * time.Millisecond, 6: 800 * time.Millisecond, 7: time.Second, 100: time.Second} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %v, want %v", n, got, want)
		}
	}
}

// idBackend answers at once and keeps every request id it was sent.
type idBackend struct {
	mu  sync.Mutex
	ids []string
}

func (b *idBackend) Send(_ context.Context, req *backend.Request, resp *backend.Response) {
	b.mu.Lock()
	b.ids = append(b.ids, req.ID)
	b.mu.Unlock()
	resp.Start = time.Now()
	resp.Chunks = backend.StampsOf(resp.Start)
	resp.Text, resp.FinishReason = "a", "length"
	time.Sleep(time.Millisecond)
}

// TestUsersCycleWithTheirOwnIDs: users bounded by time cycle through the
// plan's requests, and each request they send has its own id (prefix,
// tag, the send's index), so a server's log joins one record
// (docs/records.md); the cycled request's id used to be sent again.
func TestUsersCycleWithTheirOwnIDs(t *testing.T) {
	t.Parallel()
	be := &idBackend{}
	reqs := requests(3)
	for i := range reqs {
		reqs[i].ID = "bench-x-run2-" + strconv.Itoa(i)
	}
	e := &execution{p: &Plan{Backend: be, Requests: reqs, IDPrefix: "bench-x-", IDTag: "run2-",
		Load: Load{Users: &load.Users{Users: 2}, Duration: 200 * time.Millisecond}}}
	res, err := e.users(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(be.ids) <= len(reqs) {
		t.Fatalf("%d requests sent, want more than the plan's %d (cycled)", len(be.ids), len(reqs))
	}
	seen := map[string]bool{}
	for _, id := range be.ids {
		if seen[id] || !strings.HasPrefix(id, "bench-x-run2-") {
			t.Fatalf("id %q sent twice or without the prefix and tag (%d sent)", id, len(be.ids))
		}
		seen[id] = true
	}
	for _, r := range res.Records {
		if !seen["bench-x-run2-"+strconv.Itoa(r.Index)] {
			t.Errorf("record %d: no request sent with its index's id", r.Index)
		}
	}
}
