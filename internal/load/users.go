package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Think is a think-time distribution: uniform over [Min, Max], fixed
// when Min == Max, none when both are 0 (docs/capacity.md, "Closed-loop
// users").
type Think struct {
	Min, Max time.Duration
}

// ParseThink parses --think-time: a fixed value ("2s", "500ms", "0") or
// a uniform range MIN-MAX ("1s-3s", like Locust's between(1, 3)). A bare
// number is seconds ("1-3", "2.5").
func ParseThink(s string) (Think, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		return Think{}, fmt.Errorf("think time %q must not be negative", s)
	}
	lo, hi, isRange := strings.Cut(s, "-")
	var t Think
	var err error
	if t.Min, err = parseSeconds(lo); err != nil {
		return Think{}, fmt.Errorf("think time %q: %v (want e.g. 2s or 1s-3s)", s, err)
	}
	t.Max = t.Min
	if isRange {
		if t.Max, err = parseSeconds(hi); err != nil {
			return Think{}, fmt.Errorf("think time %q: %v (want e.g. 2s or 1s-3s)", s, err)
		}
	}
	return t, t.Validate()
}

// parseSeconds reads a Go duration ("1.5s", "300ms") or a bare number
// of seconds.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > math.MaxInt64/1e9 {
			return 0, fmt.Errorf("%q is not a usable number of seconds", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return d, nil
}

// Validate checks 0 <= Min <= Max.
func (t Think) Validate() error {
	if t.Min < 0 || t.Max < t.Min {
		return fmt.Errorf("think time must satisfy 0 <= min <= max, got %v-%v", t.Min, t.Max)
	}
	return nil
}

// Mean is the distribution's mean, (Min + Max) / 2.
func (t Think) Mean() time.Duration { return t.Min + (t.Max-t.Min)/2 }

// String is the text ParseThink reads back: "2s" or "1s-3s".
func (t Think) String() string {
	if t.Min == t.Max {
		return t.Min.String()
	}
	return t.Min.String() + "-" + t.Max.String()
}

// Draw returns one think time, uniform on [Min, Max] in nanoseconds.
func (t Think) Draw(rng *rand.Rand) time.Duration {
	d := t.Min
	if span := t.Max - t.Min; span > 0 {
		d += time.Duration(rng.Int64N(int64(span) + 1))
	}
	return d
}

// Users configures closed-loop load: a fixed number of virtual users,
// each sending one request, reading it to the end (fn returns), thinking
// and sending the next. Unlike Run's open loop, the server's speed sets
// the pace; use it to model a known user population, or, with no think
// time, to hold a fixed concurrency (see Concurrency). The zero values
// of the optional fields mean: no think time, all users at once, no
// time bound, no warm-up.
type Users struct {
	// Users is the number of virtual users (> 0).
	Users int
	// Think is the pause after each request (zero: none).
	Think Think
	// SpawnRate is how many users start per second: user u starts at
	// u / SpawnRate seconds. 0 starts every user at once.
	SpawnRate float64
	// Duration bounds the run from its start: no request starts at or
	// after start + Duration; requests in flight then finish. 0 = no
	// bound (the request count or ctx must end the run).
	Duration time.Duration
	// Warmup marks the requests whose intended start is before start +
	// Warmup (Item.Warmup), so the caller can leave them out of the
	// metrics. It counts within Duration. 0 = none.
	Warmup time.Duration
	// Seed seeds the think-time draws (math/rand/v2 PCG; user u uses
	// stream u, so a user's think times do not depend on the others).
	Seed uint64
	// Worker and Workers, when Workers > 1, run one worker's share of a
	// run split across processes (docs/distributed.md): of the Users
	// global users, this process runs those whose id is Worker modulo
	// Workers, with their global ids, spawn times and think-time streams;
	// of the n requests, it takes the global indices Worker, Worker +
	// Workers, Worker + 2·Workers, ... So every worker's users and
	// indices are distinct, and together they are the single-process
	// run's. Zero Workers = a single process.
	Worker, Workers int
}

// stride is how far apart a share's user ids and request indices are.
func (u Users) stride() int { return max(u.Workers, 1) }

// first is a share's first user id and request index.
func (u Users) first() int {
	if u.Workers > 1 {
		return u.Worker
	}
	return 0
}

// Concurrency is closed loop at fixed concurrency c: c users without
// think time, all started at once, so c requests are in flight except
// for the instant between one request's end and its user's next send.
func Concurrency(c int) Users { return Users{Users: c} }

// Validate checks the configuration.
func (u Users) Validate() error {
	if u.Users <= 0 {
		return fmt.Errorf("number of users must be > 0, got %d", u.Users)
	}
	if err := u.Think.Validate(); err != nil {
		return err
	}
	if math.IsNaN(u.SpawnRate) || math.IsInf(u.SpawnRate, 0) || u.SpawnRate < 0 {
		return fmt.Errorf("spawn rate must be a finite number of users per second >= 0, got %v", u.SpawnRate)
	}
	if u.Duration < 0 || u.Warmup < 0 {
		return fmt.Errorf("duration and warm-up must not be negative, got %v and %v", u.Duration, u.Warmup)
	}
	if u.Workers < 0 || u.Worker < 0 || (u.Workers > 1 && u.Worker >= u.Workers) {
		return fmt.Errorf("worker %d of %d: want 0 <= worker < workers", u.Worker, u.Workers)
	}
	if u.Duration > 0 && u.Warmup >= u.Duration {
		return fmt.Errorf("warm-up %v leaves nothing of duration %v to measure", u.Warmup, u.Duration)
	}
	return nil
}

// errUnbounded: neither a request count nor a duration would end the run.
var errUnbounded = errors.New("closed-loop users need a request count or a duration to end")

// RunUsers runs u's closed-loop users until n requests were taken
// (indices 0..n-1, in the order users become ready; n <= 0 means no
// count bound, which needs u.Duration), u.Duration has passed, or ctx is
// done. Each Item carries the user, the user's iteration, the think time
// before it, whether it is a warm-up request, and Intended: the instant
// the user meant to send (its spawn time, or the previous request's end
// plus the think time). Arrived = Acquired = when the user's timer
// fired, so Arrived - Intended is the client's own lag.
//
// When ctx is done, thinking and spawning users stop at once and calls
// in progress get the canceled ctx; the untaken indices are reported in
// Result.NotSent when the run had a count bound and no duration. RunUsers
// returns when every user has stopped.
func RunUsers(ctx context.Context, n int, u Users, fn func(ctx context.Context, it Item)) (Result, error) {
	if err := u.Validate(); err != nil {
		return Result{}, err
	}
	if n <= 0 && u.Duration <= 0 {
		return Result{}, errUnbounded
	}
	r := &userRun{ctx: ctx, u: u, n: n, start: time.Now()}
	if u.Duration > 0 {
		r.end = r.start.Add(u.Duration)
	}
	var wg sync.WaitGroup
	for user := u.first(); user < u.Users; user += u.stride() {
		wg.Go(func() { r.user(user, fn) })
	}
	wg.Wait()
	res := Result{Start: r.start, End: time.Now(), Sent: r.next}
	if ctx.Err() != nil && n > 0 && u.Duration <= 0 {
		for i := r.index(r.next); i < n; i += u.stride() {
			res.NotSent = append(res.NotSent, i)
		}
	}
	return res, nil
}

// userRun is the state RunUsers' users share.
type userRun struct {
	ctx        context.Context
	u          Users
	n          int
	start, end time.Time // end is zero without a duration

	mu   sync.Mutex
	next int // requests taken
}

// index is the global request index of this share's k-th request.
func (r *userRun) index(k int) int { return k*r.u.stride() + r.u.first() }

// take hands out the next index, or false when the run is over.
func (r *userRun) take() (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.index(r.next)
	if (r.n > 0 && i >= r.n) || r.ctx.Err() != nil {
		return 0, false
	}
	r.next++
	return i, true
}

// exhausted reports whether every index was taken.
func (r *userRun) exhausted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n > 0 && r.index(r.next) >= r.n
}

// waitUntil waits on timer for the absolute instant due; false when the
// run ends first (ctx done, or due at or past the end).
func (r *userRun) waitUntil(timer *time.Timer, due time.Time) bool {
	if !r.end.IsZero() && !due.Before(r.end) {
		return false
	}
	if wait := time.Until(due); wait > 0 {
		timer.Reset(wait)
		select {
		case <-r.ctx.Done():
			return false
		case <-timer.C:
		}
	}
	return r.ctx.Err() == nil
}

// user is one virtual user's loop: wait for the due instant, send, read
// to the end (fn returns), draw a think time, repeat.
func (r *userRun) user(id int, fn func(ctx context.Context, it Item)) {
	rng := rand.New(rand.NewPCG(r.u.Seed, uint64(id)))
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	due := r.start
	if r.u.SpawnRate > 0 {
		due = due.Add(time.Duration(float64(id) / r.u.SpawnRate * float64(time.Second)))
	}
	var think time.Duration
	for iter := 0; ; iter++ {
		if !r.waitUntil(timer, due) {
			return
		}
		i, ok := r.take()
		if !ok {
			return
		}
		now := time.Now()
		fn(r.ctx, Item{Index: i, Intended: due, Arrived: now, Acquired: now,
			User: id, Iteration: iter, Think: think, Warmup: due.Before(r.start.Add(r.u.Warmup))})
		if r.exhausted() {
			return // no think time after the last request
		}
		think = r.u.Think.Draw(rng)
		due = time.Now().Add(think)
	}
}
