package sim

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestBatchingSaturates ramps concurrency 1 -> 64 against the "fast"
// preset (16 batch slots) over real loopback HTTP and checks the shape a
// sweep must find: output throughput rises, then flattens once the batch is
// full, while p99 TTFT climbs as requests queue. Figures come from the
// server's ground truth (arrival and the engine's due time of each token),
// so CPU noise in the client or the writers under -race does not blur them.
func TestBatchingSaturates(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	p, _ := LookupPreset("fast")
	cfg = cfg.WithPreset(p)
	hc := newHTTPClient()
	const outTokens = 16
	type level struct {
		c        int
		tput     float64 // output tokens/s
		p99TTFT  time.Duration
		finished int
	}
	var levels []level
	for _, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		var mu sync.Mutex
		var truths []Truth
		lc := cfg
		lc.OnTruth = func(tr Truth) { mu.Lock(); truths = append(truths, tr); mu.Unlock() }
		run := startSim(t, lc)
		// Closed loop: c workers, each sending requests back to back: 32
		// requests per level, at least 2 per worker (8 batch waves at 64).
		perWorker := max(2, 32/c)
		var wg sync.WaitGroup
		for w := range c {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perWorker {
					body := fmt.Sprintf(`{"prompt":"worker %d request %d with a short prompt","max_tokens":%d,"ignore_eos":true,"stream":true}`, w, i, outTokens)
					resp := post(t, hc, run.URL+"/v1/completions", body)
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		mu.Lock()
		var first, last time.Time
		var ttfts []time.Duration
		tokens := 0
		for _, tr := range truths {
			if first.IsZero() || tr.Arrival.Before(first) {
				first = tr.Arrival
			}
			for _, ch := range tr.Chunks {
				if ch.Kind == ChunkToken {
					tokens += ch.Tokens
					if ch.Due.After(last) {
						last = ch.Due
					}
				}
			}
			ttfts = append(ttfts, tr.Chunks[0].Due.Sub(tr.Arrival))
		}
		slices.Sort(ttfts)
		l := level{c: c, tput: float64(tokens) / last.Sub(first).Seconds(),
			p99TTFT: ttfts[(len(ttfts)*99)/100], finished: len(truths)}
		mu.Unlock()
		if want := c * perWorker; l.finished != want || tokens != want*outTokens {
			t.Fatalf("concurrency %d: %d requests, %d tokens; want %d, %d", c, l.finished, tokens, want, want*outTokens)
		}
		t.Logf("concurrency %2d: %6.0f tok/s, p99 TTFT %v", c, l.tput, l.p99TTFT.Round(100*time.Microsecond))
		levels = append(levels, l)
	}
	at := func(c int) level {
		for _, l := range levels {
			if l.c == c {
				return l
			}
		}
		t.Fatalf("no level %d", c)
		return level{}
	}
	// Model: step = 2ms + 0.25ms*n, so throughput is n/step: ~440 tok/s at
	// 1, ~2,670 at 16 and, with 16 slots, the same beyond. The bounds are
	// loose because a closed-loop client on a busy 2-core machine cannot
	// always keep the batch full; TestBatchEngineRampExact pins the model
	// itself in virtual time.
	if r := at(16).tput / at(1).tput; r < 2 {
		t.Errorf("throughput did not rise: 16 vs 1 = %.2fx", r)
	}
	// Flat means no more growth (at most +33 %) over the best level at or
	// past the 16 slots: one level dipping on a busy machine does not
	// count (32 was seen at 0.47x of 16 in CI, and 64 at 0.68x of 32 with
	// a second suite beside it). Below, only a collapse fails; the model's
	// own plateau is exact in TestBatchEngineRampExact.
	plateau := max(at(16).tput, at(32).tput)
	if r := at(64).tput / plateau; r < 0.3 || r > 1.33 {
		t.Errorf("throughput did not flatten: 64 vs the best of 16 and 32 = %.2fx", r)
	}
	if at(64).p99TTFT < 3*at(8).p99TTFT {
		t.Errorf("p99 TTFT did not climb with queueing: 8: %v, 64: %v", at(8).p99TTFT, at(64).p99TTFT)
	}
}
