package bench

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
)

// TestShareUnionIsTheSchedule: the shares of 4 workers are disjoint, keep
// each request's global index and intended offset, and together are the
// single-process schedule, whatever the arrival process.
func TestShareUnionIsTheSchedule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    load.Arrivals
	}{
		{"poisson", load.Arrivals{Rate: 50, Burstiness: 1, Seed: 3}},
		{"gamma", load.Arrivals{Rate: 20, Burstiness: 0.5, Seed: 9}},
		{"ramp", load.Arrivals{Rate: math.Inf(1), Burstiness: 1, Seed: 1, RampStrategy: "linear", RampStartRPS: 1, RampEndRPS: 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plan{Load: Load{Arrivals: tc.a, MaxConcurrency: 10}}
			for i := range 37 {
				p.Requests = append(p.Requests, backend.Request{Index: i, ID: "r" + string(rune('a'+i%26))})
			}
			global, _, err := schedule(p)
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]int, len(p.Requests))
			caps := 0
			for w := range 4 {
				q, err := p.Share(Share{Index: w, Count: 4})
				if err != nil {
					t.Fatal(err)
				}
				caps += q.Load.MaxConcurrency
				if q.Worker != w+1 || len(q.Requests) != len(q.Schedule) {
					t.Fatalf("worker %d: stamp %d, %d requests, %d offsets", w, q.Worker, len(q.Requests), len(q.Schedule))
				}
				for k, r := range q.Requests {
					if r.Index%4 != w || q.Schedule[k] != global[r.Index] || r.ID != p.Requests[r.Index].ID {
						t.Errorf("worker %d request %d: index %d offset %v, want offset %v", w, k, r.Index, q.Schedule[k], global[r.Index])
					}
					seen[r.Index]++
				}
				if !slices.IsSorted(q.Schedule) {
					t.Errorf("worker %d: offsets not in order", w)
				}
			}
			for i, n := range seen {
				if n != 1 {
					t.Errorf("request %d is in %d shares", i, n)
				}
			}
			if caps != 10 {
				t.Errorf("concurrency caps add up to %d, want 10", caps)
			}
		})
	}
}

// TestShareRefuses: shares that would leave a worker nothing to do.
func TestShareRefuses(t *testing.T) {
	t.Parallel()
	two := &Plan{Requests: make([]backend.Request, 2), Load: Load{Arrivals: load.Arrivals{Rate: 1, Burstiness: 1}}}
	capped := &Plan{Requests: make([]backend.Request, 9), Load: Load{Arrivals: load.Arrivals{Rate: 1, Burstiness: 1}, MaxConcurrency: 2}}
	users := &Plan{Requests: make([]backend.Request, 9), Load: Load{Users: &load.Users{Users: 2}}}
	for _, tc := range []struct {
		why string
		p   *Plan
		s   Share
	}{
		{"fewer requests than workers", two, Share{Index: 0, Count: 3}},
		{"a cap smaller than the worker count", capped, Share{Index: 0, Count: 3}},
		{"fewer users than workers", users, Share{Index: 1, Count: 3}},
		{"index out of range", two, Share{Index: 2, Count: 2}},
	} {
		if _, err := tc.p.Share(tc.s); err == nil {
			t.Errorf("%s: accepted", tc.why)
		}
	}
}

// TestWaitUntilPast: a start instant in the past does not wait.
func TestWaitUntilPast(t *testing.T) {
	t.Parallel()
	if err := waitUntil(t.Context(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
}
