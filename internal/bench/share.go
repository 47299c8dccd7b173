package bench

import (
	"context"
	"fmt"
	"time"
)

// Share names one worker's part of a run split across processes
// (docs/distributed.md).
type Share struct {
	// Index is the worker's index, 0..Count-1.
	Index int
	// Count is the number of workers (>= 1).
	Count int
}

// Share returns worker s.Index's part of p, so that the parts of all
// s.Count workers, started at the same instant, make up p's run:
//
//   - open loop: the global schedule is computed for all of p's requests
//     (the same seed gives the same offsets on every worker), and the
//     worker keeps the requests whose index is s.Index modulo s.Count,
//     with their global index, id and intended send offset. With 4
//     workers, worker 1 sends requests 1, 5, 9, ... at the instants the
//     single process would have sent them.
//   - closed loop (--users): the worker runs the users whose id is
//     s.Index modulo s.Count and takes the request indices of the same
//     residue class (load.Users.Worker).
//
// A concurrency cap C is divided: C / Count per worker, one more for the
// first C mod Count workers, so the caps add up to C (each worker gates
// its own requests: the union is not gated globally). p.Params keep
// describing the whole run. Ramp-up rate-change events are not recorded
// by a share (its schedule is given explicitly).
func (p *Plan) Share(s Share) (*Plan, error) {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return nil, fmt.Errorf("worker index %d of %d: want 0 <= index < count", s.Index, s.Count)
	}
	q := *p
	q.Worker = s.Index + 1
	if u := p.Load.Users; u != nil {
		if u.Users < s.Count {
			return nil, fmt.Errorf("%d users cannot be split across %d workers: want at least one user each", u.Users, s.Count)
		}
		uu := *u
		uu.Worker, uu.Workers = s.Index, s.Count
		q.Load.Users = &uu
		return &q, nil
	}
	if len(p.Requests) < s.Count {
		return nil, fmt.Errorf("%d requests cannot be split across %d workers: want at least one request each", len(p.Requests), s.Count)
	}
	if c := p.Load.MaxConcurrency; c > 0 {
		if c < s.Count {
			return nil, fmt.Errorf("max concurrency %d cannot be split across %d workers: want at least 1 each", c, s.Count)
		}
		q.Load.MaxConcurrency = c / s.Count
		if s.Index < c%s.Count {
			q.Load.MaxConcurrency++
		}
	}
	offsets, _, err := schedule(p)
	if err != nil {
		return nil, err
	}
	q.Requests, q.Schedule = nil, nil
	for i := s.Index; i < len(p.Requests); i += s.Count {
		q.Requests = append(q.Requests, p.Requests[i])
		q.Schedule = append(q.Schedule, offsets[i])
	}
	return &q, nil
}

// waitUntil blocks until the wall clock reaches at (zero: return at
// once); ctx ends the wait with its error.
func waitUntil(ctx context.Context, at time.Time) error {
	if at.IsZero() {
		return nil
	}
	if !sleep(ctx, time.Until(at)) {
		return ctx.Err()
	}
	return nil
}
