package cli

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
)

// TestRunUsers: --users N with --think-time keeps at most N requests in
// flight (counted on the server), every user works, and the think times
// follow the range: each drawn within it, their mean near its middle, and
// each user's next request sent no sooner than its think time after the
// previous response ended.
func TestRunUsers(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) {
		c.TTFT = 20 * time.Millisecond
		c.ITL = 5 * time.Millisecond
	})
	const users = 20
	path := filepath.Join(t.TempDir(), "u.jsonl")
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--users", "20",
		"--think-time", "100ms-300ms", "--duration", "3s", "--num-prompts", "50", "--random-input-len", "8",
		"--random-output-len", "20", "--request-id-prefix", "users-", "--save-records", path, "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if peak := peakInFlight(srv, "users-"); peak > users || peak < users/2 {
		t.Errorf("server saw at most %d requests in flight, want <= %d and most users busy at once", peak, users)
	}
	_, recs, _, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	byUser := map[int][]record.Record{}
	var thinks []float64
	for _, r := range recs {
		byUser[r.User] = append(byUser[r.User], r)
	}
	if len(byUser) != users {
		t.Errorf("%d users sent requests, want %d", len(byUser), users)
	}
	for u, rs := range byUser {
		slices.SortFunc(rs, func(a, b record.Record) int { return a.Index - b.Index })
		for i := 1; i < len(rs); i++ {
			prev, r := rs[i-1], rs[i]
			thinks = append(thinks, r.ThinkTime)
			if r.ThinkTime < 0.1 || r.ThinkTime > 0.3 {
				t.Errorf("user %d: think time %v outside 100ms-300ms", u, r.ThinkTime)
			}
			if gap := r.StartTime - prev.End(); gap < r.ThinkTime-1e-3 {
				t.Errorf("user %d sent %.3f s after its previous response, before its %.3f s think time", u, gap, r.ThinkTime)
			}
		}
	}
	if len(thinks) < 3*users {
		t.Fatalf("only %d think times in 3 s", len(thinks))
	}
	// Uniform on [0.1, 0.3]: mean 0.2, sd 0.058; the mean of n >= 60
	// draws is within 0.04 of 0.2 with overwhelming probability.
	mean := 0.0
	for _, v := range thinks {
		mean += v / float64(len(thinks))
	}
	if mean < 0.16 || mean > 0.24 {
		t.Errorf("mean think time %.3f s, want about 0.2 s", mean)
	}
}

// peakInFlight is the most requests with the given id prefix the server
// was serving at once.
func peakInFlight(srv *sim.Running, prefix string) int {
	type ev struct {
		at    time.Time
		delta int
	}
	var evs []ev
	for _, tr := range srv.Server.Truth() {
		if len(tr.RequestID) >= len(prefix) && tr.RequestID[:len(prefix)] == prefix {
			evs = append(evs, ev{tr.Arrival, 1}, ev{tr.End, -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // an end before a start at the same instant
	})
	n, peak := 0, 0
	for _, e := range evs {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}
