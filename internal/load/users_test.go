package load

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestRunUsersClosedLoop: 2 users, 1 s per request, 1 s think: each user
// sends at 0, 2, 4 s; six requests take 5 s.
func TestRunUsersClosedLoop(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		start := time.Now()
		res, err := RunUsers(t.Context(), 6, Users{Users: 2, ThinkMin: time.Second, ThinkMax: time.Second},
			rec.fn(func(int) time.Duration { return time.Second }))
		if err != nil {
			t.Fatal(err)
		}
		if res.Sent != 6 || rec.maxIn != 2 || res.End.Sub(start) != 5*time.Second {
			t.Fatalf("sent %d, max in flight %d, took %v", res.Sent, rec.maxIn, res.End.Sub(start))
		}
		var at []time.Duration
		for _, it := range rec.sorted() {
			at = append(at, it.Arrived.Sub(start))
		}
		want := []time.Duration{0, 0, 2 * time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}
		if !slices.Equal(at, want) {
			t.Fatalf("sent at %v, want %v", at, want)
		}
	})
}

// TestRunUsersThinkRange: think times stay inside the range and depend on
// the seed.
func TestRunUsersThinkRange(t *testing.T) {
	t.Parallel()
	gaps := func(seed uint64) []time.Duration {
		var out []time.Duration
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			if _, err := RunUsers(t.Context(), 20, Users{Users: 1, ThinkMin: time.Second, ThinkMax: 3 * time.Second, Seed: seed},
				rec.fn(func(int) time.Duration { return 0 })); err != nil {
				t.Fatal(err)
			}
			items := rec.sorted()
			for i := 1; i < len(items); i++ {
				out = append(out, items[i].Arrived.Sub(items[i-1].Arrived))
			}
		})
		return out
	}
	a, b := gaps(1), gaps(2)
	for _, g := range a {
		if g < time.Second || g > 3*time.Second {
			t.Fatalf("think time %v outside 1s-3s", g)
		}
	}
	if slices.Equal(a, b) || !slices.Equal(a, gaps(1)) {
		t.Fatal("think times do not follow the seed")
	}
}

func TestRunUsersCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(2500*time.Millisecond, cancel)
		var rec recorder
		res, _ := RunUsers(ctx, 10, Users{Users: 1}, rec.fn(func(int) time.Duration { return time.Second }))
		// Requests at 0, 1, 2 s; the third is cut at 2.5 s.
		if res.Sent != 3 || !slices.Equal(res.NotSent, []int{3, 4, 5, 6, 7, 8, 9}) {
			t.Fatalf("sent %d, not sent %v", res.Sent, res.NotSent)
		}
	})
}

func TestUsersValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		u   Users
		msg string
	}{
		{Users{}, "users must be > 0"},
		{Users{Users: 1, ThinkMin: 2, ThinkMax: 1}, "think time"},
		{Users{Users: 1, ThinkMin: -1}, "think time"},
	} {
		if _, err := RunUsers(t.Context(), 1, tt.u, func(context.Context, Item) {}); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: got %v, want %q", tt.u, err, tt.msg)
		}
	}
}
