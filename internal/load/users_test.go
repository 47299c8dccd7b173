package load

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
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
		res, err := RunUsers(t.Context(), 6, Users{Users: 2, Think: Think{time.Second, time.Second}},
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
			if it.Intended != it.Arrived || it.Warmup {
				t.Errorf("item %d: intended %v, arrived %v, warm-up %v", it.Index, it.Intended, it.Arrived, it.Warmup)
			}
			if want := time.Duration(min(it.Iteration, 1)) * time.Second; it.Think != want {
				t.Errorf("item %d (iteration %d): think %v, want %v", it.Index, it.Iteration, it.Think, want)
			}
		}
		want := []time.Duration{0, 0, 2 * time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}
		if !slices.Equal(at, want) {
			t.Fatalf("sent at %v, want %v", at, want)
		}
	})
}

// TestConcurrencyExactlyN: fixed concurrency keeps exactly c requests in
// flight at every instant a request is not changing hands.
func TestConcurrencyExactlyN(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		// Service times 0.3 s to 1.5 s, so users fall out of step.
		work := func(i int) time.Duration { return time.Duration(300+(i*37)%1200) * time.Millisecond }
		done := make(chan Result, 1)
		go func() {
			res, err := RunUsers(t.Context(), 0, Users{Users: 5, Duration: 20 * time.Second}, rec.fn(work))
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		for at := 50 * time.Millisecond; at < 19*time.Second; at += 100 * time.Millisecond {
			time.Sleep(100 * time.Millisecond)
			synctest.Wait()
			rec.mu.Lock()
			in := rec.inFlight
			rec.mu.Unlock()
			if in != 5 {
				t.Fatalf("%d in flight at %v, want exactly 5", in, at)
			}
		}
		res := <-done
		if rec.maxIn != 5 || res.Sent < 5*19/2 {
			t.Errorf("max in flight %d, sent %d", rec.maxIn, res.Sent)
		}
	})
}

// TestUsersThinkDistribution is the check: 20 users, think time
// 1s-3s, 20 s: at most 20 in flight, no request starts after 20 s, and
// the measured think times (previous end to next send, per user) follow
// the uniform distribution: Kolmogorov-Smirnov distance under the 1 %
// critical value 1.63/sqrt(n), with a fixed seed.
func TestUsersThinkDistribution(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var (
			mu      sync.Mutex
			lastEnd = map[int]time.Time{}
			thinks  []float64
			in, top int
			late    []Item
		)
		start := time.Now()
		u := Users{Users: 20, Think: Think{time.Second, 3 * time.Second}, Duration: 20 * time.Second, Seed: 7}
		fn := func(ctx context.Context, it Item) {
			mu.Lock()
			if end, ok := lastEnd[it.User]; ok {
				thinks = append(thinks, it.Arrived.Sub(end).Seconds())
			}
			if it.Intended.Sub(start) >= 20*time.Second {
				late = append(late, it)
			}
			in++
			top = max(top, in)
			mu.Unlock()
			time.Sleep(time.Duration(200+(it.Index*53)%600) * time.Millisecond)
			mu.Lock()
			in--
			lastEnd[it.User] = time.Now()
			mu.Unlock()
		}
		res, err := RunUsers(t.Context(), 0, u, fn)
		if err != nil {
			t.Fatal(err)
		}
		if top > 20 || top < 19 || len(late) > 0 {
			t.Errorf("max in flight %d (want at most 20, and all users active at the start), %d requests after 20 s", top, len(late))
		}
		if d := res.End.Sub(start); d > 21*time.Second {
			t.Errorf("run took %v: longer than the 20 s bound plus one request", d)
		}
		n := len(thinks)
		if n < 100 {
			t.Fatalf("only %d think times measured", n)
		}
		slices.Sort(thinks)
		dist := 0.0
		for i, x := range thinks {
			cdf := math.Min(math.Max((x-1)/2, 0), 1)
			dist = max(dist, math.Abs(cdf-float64(i)/float64(n)), math.Abs(cdf-float64(i+1)/float64(n)))
		}
		if crit := 1.63 / math.Sqrt(float64(n)); dist > crit || thinks[0] < 1 || thinks[n-1] > 3 {
			t.Errorf("think times over %d draws: KS distance %.3f (critical %.3f), range %.3f-%.3f s", n, dist, crit, thinks[0], thinks[n-1])
		}
	})
}

// TestUsersSpawnWarmup: users start at u/SpawnRate; requests meant to
// start within the warm-up are marked.
func TestUsersSpawnWarmup(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		start := time.Now()
		u := Users{Users: 4, SpawnRate: 2, Warmup: 1200 * time.Millisecond, Duration: 3 * time.Second}
		if _, err := RunUsers(t.Context(), 0, u, rec.fn(func(int) time.Duration { return time.Second })); err != nil {
			t.Fatal(err)
		}
		first := map[int]time.Duration{}
		for _, it := range rec.sorted() {
			at := it.Intended.Sub(start)
			if it.Iteration == 0 {
				first[it.User] = at
			}
			if it.Warmup != (at < 1200*time.Millisecond) {
				t.Errorf("user %d at %v: warm-up %v", it.User, at, it.Warmup)
			}
			if at >= 3*time.Second {
				t.Errorf("user %d sent at %v, after the 3 s bound", it.User, at)
			}
		}
		want := map[int]time.Duration{0: 0, 1: 500 * time.Millisecond, 2: time.Second, 3: 1500 * time.Millisecond}
		for user, at := range want {
			if first[user] != at {
				t.Errorf("user %d first sent at %v, want %v", user, first[user], at)
			}
		}
	})
}

// TestRunUsersThinkSeed: think times depend on the seed only.
func TestRunUsersThinkSeed(t *testing.T) {
	t.Parallel()
	gaps := func(seed uint64) []time.Duration {
		var out []time.Duration
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			if _, err := RunUsers(t.Context(), 20, Users{Users: 1, Think: Think{time.Second, 3 * time.Second}, Seed: seed},
				rec.fn(func(int) time.Duration { return 0 })); err != nil {
				t.Fatal(err)
			}
			for _, it := range rec.sorted()[1:] {
				out = append(out, it.Think)
			}
		})
		return out
	}
	a, b := gaps(1), gaps(2)
	if slices.Equal(a, b) || !slices.Equal(a, gaps(1)) {
		t.Fatal("think times do not follow the seed")
	}
}

// TestRunUsersCancel: cancellation ends a request in flight and a think
// at once.
func TestRunUsersCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(2500*time.Millisecond, cancel)
		var rec recorder
		start := time.Now()
		res, _ := RunUsers(ctx, 10, Users{Users: 1}, rec.fn(func(int) time.Duration { return time.Second }))
		// Requests at 0, 1, 2 s; the third is cut at 2.5 s.
		if res.Sent != 3 || !slices.Equal(res.NotSent, []int{3, 4, 5, 6, 7, 8, 9}) || res.End.Sub(start) != 2500*time.Millisecond {
			t.Fatalf("sent %d, not sent %v, ended at %v", res.Sent, res.NotSent, res.End.Sub(start))
		}
		// A user thinking for an hour stops with the context too.
		ctx, cancel = context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		res, _ = RunUsers(ctx, 0, Users{Users: 3, Think: Think{time.Hour, time.Hour}, Duration: 24 * time.Hour},
			rec.fn(func(int) time.Duration { return 0 }))
		if res.End.Sub(start) != time.Second || res.Sent != 3 || res.NotSent != nil {
			t.Fatalf("thinking users: ended at %v, sent %d, not sent %v", res.End.Sub(start), res.Sent, res.NotSent)
		}
	})
}

func TestUsersValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		u   Users
		n   int
		msg string
	}{
		{Users{}, 1, "users must be > 0"},
		{Users{Users: 1, Think: Think{2, 1}}, 1, "think time"},
		{Users{Users: 1, Think: Think{Min: -1}}, 1, "think time"},
		{Users{Users: 1, SpawnRate: -1}, 1, "spawn rate"},
		{Users{Users: 1, SpawnRate: math.Inf(1)}, 1, "spawn rate"},
		{Users{Users: 1, Duration: -1}, 1, "must not be negative"},
		{Users{Users: 1, Duration: time.Second, Warmup: time.Second}, 1, "leaves nothing"},
		{Users{Users: 1}, 0, "request count or a duration"},
	} {
		if _, err := RunUsers(t.Context(), tt.n, tt.u, func(context.Context, Item) {}); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: got %v, want %q", tt.u, err, tt.msg)
		}
	}
}

func TestParseThink(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want Think
		msg  string
	}{
		{in: "2s", want: Think{2 * time.Second, 2 * time.Second}},
		{in: "1s-3s", want: Think{time.Second, 3 * time.Second}},
		{in: "1-3", want: Think{time.Second, 3 * time.Second}}, // Locust's between(1, 3)
		{in: " 500ms - 1.5s ", want: Think{500 * time.Millisecond, 1500 * time.Millisecond}},
		{in: "0", want: Think{}},
		{in: "2.5", want: Think{2500 * time.Millisecond, 2500 * time.Millisecond}},
		{in: "3s-1s", msg: "0 <= min <= max"},
		{in: "-1s", msg: "must not be negative"},
		{in: "abc", msg: `"abc" is not a duration`},
		{in: "1s-", msg: `"" is not a duration`},
		{in: "1s-2s-3s", msg: `"2s-3s" is not a duration`},
		{in: "NaN", msg: "not a usable number"},
	} {
		got, err := ParseThink(tt.in)
		if tt.msg != "" {
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ParseThink(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.msg)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseThink(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, err := ParseThink(got.String()); err != nil || back != got {
			t.Errorf("ParseThink(%q.String() = %q) = %v, %v", tt.in, got.String(), back, err)
		}
	}
	if m := (Think{time.Second, 3 * time.Second}).Mean(); m != 2*time.Second {
		t.Errorf("mean %v, want 2s", m)
	}
}
