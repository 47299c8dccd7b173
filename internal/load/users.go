package load

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Users configures closed-loop load: a fixed number of virtual users, each
// sending one request, waiting for it to finish, thinking, and sending the
// next. Unlike Run's open loop, the server's speed sets the pace; use it to
// model a known user population, not to measure at a given rate.
type Users struct {
	// Users is the number of virtual users (> 0).
	Users int
	// ThinkMin and ThinkMax bound each think time, drawn uniformly from
	// [ThinkMin, ThinkMax] after every request (both 0: no think time).
	ThinkMin, ThinkMax time.Duration
	// Seed seeds the think-time draws (math/rand/v2 PCG; user u uses
	// stream u, so a user's think times do not depend on the others).
	Seed uint64
}

// Validate checks the configuration.
func (u Users) Validate() error {
	if u.Users <= 0 {
		return fmt.Errorf("number of users must be > 0, got %d", u.Users)
	}
	if u.ThinkMin < 0 || u.ThinkMax < u.ThinkMin {
		return fmt.Errorf("think time must satisfy 0 <= min <= max, got %v-%v", u.ThinkMin, u.ThinkMax)
	}
	return nil
}

// RunUsers sends n requests (indices 0..n-1, taken in order by whichever
// user is ready first) from u.Users closed-loop users that all start at
// once. An Item's Intended, Arrived and Acquired are all the instant the
// user was ready to send. When ctx is done, users stop taking requests and
// the untaken indices are reported in Result.NotSent. RunUsers returns
// when every user has stopped.
func RunUsers(ctx context.Context, n int, u Users, fn func(ctx context.Context, it Item)) (Result, error) {
	if err := u.Validate(); err != nil {
		return Result{}, err
	}
	res := Result{Start: time.Now()}
	var (
		mu   sync.Mutex
		next int
		wg   sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= n || ctx.Err() != nil {
			return 0, false
		}
		next++
		res.Sent++
		return next - 1, true
	}
	for user := range min(u.Users, max(n, 0)) {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(u.Seed, uint64(user)))
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			defer timer.Stop()
			for {
				i, ok := take()
				if !ok {
					return
				}
				now := time.Now()
				fn(ctx, Item{Index: i, Intended: now, Arrived: now, Acquired: now})
				mu.Lock()
				done := next >= n
				mu.Unlock()
				if done {
					return // no think time after the last request
				}
				think := u.ThinkMin
				if span := u.ThinkMax - u.ThinkMin; span > 0 {
					think += time.Duration(rng.Int64N(int64(span) + 1))
				}
				if think > 0 {
					timer.Reset(think)
					select {
					case <-ctx.Done():
						return
					case <-timer.C:
					}
				}
			}
		})
	}
	wg.Wait()
	res.End = time.Now()
	for i := next; i < n; i++ {
		res.NotSent = append(res.NotSent, i)
	}
	return res, nil
}
