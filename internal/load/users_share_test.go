package load

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestRunUsersShares: 5 users and 12 requests split across 3 workers.
// Every worker runs the users whose id is its index modulo 3, spawned at
// their global spawn times, and takes the indices of its residue class,
// so the shares are disjoint and their union is the single-process run's
// users and indices (docs/distributed.md).
func TestRunUsersShares(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const users, n, workers = 5, 12, 3
		var indices, ids []int
		for w := range workers {
			var rec recorder
			u := Users{Users: users, SpawnRate: 10, Think: Think{Min: time.Second, Max: 2 * time.Second}, Seed: 7, Worker: w, Workers: workers}
			res, err := RunUsers(t.Context(), n, u, rec.fn(func(int) time.Duration { return time.Second }))
			if err != nil {
				t.Fatal(err)
			}
			if want := (n - w + workers - 1) / workers; res.Sent != want {
				t.Errorf("worker %d sent %d, want %d", w, res.Sent, want)
			}
			for _, it := range rec.sorted() {
				if it.Index%workers != w || it.User%workers != w {
					t.Errorf("worker %d took index %d for user %d", w, it.Index, it.User)
				}
				if it.Iteration == 0 {
					// Spawned at the global user's time: id / 10 s after this share's start.
					if got, want := it.Intended.Sub(res.Start), time.Duration(it.User)*100*time.Millisecond; got != want {
						t.Errorf("user %d spawned at %v, want %v", it.User, got, want)
					}
				}
				indices = append(indices, it.Index)
				if !slices.Contains(ids, it.User) {
					ids = append(ids, it.User)
				}
			}
		}
		slices.Sort(indices)
		slices.Sort(ids)
		if len(indices) != n || indices[0] != 0 || indices[n-1] != n-1 || len(slices.Compact(indices)) != n {
			t.Errorf("indices %v, want 0..%d once each", indices, n-1)
		}
		if !slices.Equal(ids, []int{0, 1, 2, 3, 4}) {
			t.Errorf("users %v, want 0..4", ids)
		}
	})
}
