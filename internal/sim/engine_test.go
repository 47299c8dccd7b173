package sim

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// collect waits for all of s's tokens and returns their due times.
func collect(t *testing.T, s *seq) []time.Time {
	t.Helper()
	for s.progress() < s.target {
		<-s.notify
	}
	out := make([]time.Time, s.target)
	for i := range out {
		out[i] = s.dueOf(i)
	}
	return out
}

// TestFixedEngineSchedule: token i is due at arrival + TTFT + i*ITL,
// for overlapping requests, in virtual time.
func TestFixedEngineSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFixedEngine(50*time.Millisecond, 10*time.Millisecond, fakeClockSleeper())
		defer e.close()
		t0 := time.Now()
		var seqs []*seq
		for i := range 3 {
			s := newSeq(time.Now(), 5, 4+i)
			e.submit(s)
			seqs = append(seqs, s)
			time.Sleep(3 * time.Millisecond)
		}
		for i, s := range seqs {
			dues := collect(t, s)
			for k, d := range dues {
				want := t0.Add(time.Duration(i)*3*time.Millisecond + 50*time.Millisecond + time.Duration(k)*10*time.Millisecond)
				if !d.Equal(want) {
					t.Errorf("seq %d token %d due %v after start, want %v", i, k, d.Sub(t0), want.Sub(t0))
				}
			}
		}
	})
}

// TestBatchEngineStepMath checks the step-time formula on a single
// request: prefill of 100 tokens at 10k tok/s plus the base, then one
// decode step per token.
func TestBatchEngineStepMath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := Batching{MaxNumSeqs: 4, MaxNumBatchedTokens: 64, PrefillTokensPerSec: 10000,
			DecodeBase: 10 * time.Millisecond, DecodePerSeq: time.Millisecond, KVCacheTokens: 1000}
		e := newBatchEngine(m, false, fakeClockSleeper())
		defer e.close()
		t0 := time.Now()
		s := newSeq(t0, 100, 3)
		e.submit(s)
		dues := collect(t, s)
		// Prefill is chunked at 64 tokens: step 1 = 10ms + 6.4ms, step 2
		// = 10ms + 3.6ms (36 tokens) and yields the first token; then each
		// decode step is 10ms + 1ms.
		want := []time.Duration{30 * time.Millisecond, 41 * time.Millisecond, 52 * time.Millisecond}
		for i, d := range dues {
			if got := d.Sub(t0); got != want[i] {
				t.Errorf("token %d at %v, want %v", i, got, want[i])
			}
		}
	})
}

// TestBatchEngineQueueing: with two batch slots the third request waits
// for a slot, so its first token comes only after one of the first two
// finished; and two requests whose contexts outgrow the KV cache together
// start together, and the newer one is preempted.
func TestBatchEngineQueueing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := Batching{MaxNumSeqs: 2, MaxNumBatchedTokens: 64, PrefillTokensPerSec: 1e9,
			DecodeBase: 10 * time.Millisecond, KVCacheTokens: 1000}
		e := newBatchEngine(m, false, fakeClockSleeper())
		defer e.close()
		t0 := time.Now()
		a, b, c := newSeq(t0, 1, 5), newSeq(t0, 1, 5), newSeq(t0, 1, 5)
		e.submit(a)
		e.submit(b)
		e.submit(c)
		da, dc := collect(t, a), collect(t, c)
		collect(t, b)
		if !dc[0].After(da[len(da)-1]) {
			t.Errorf("queued request's first token at %v, before the first batch finished at %v",
				dc[0].Sub(t0), da[len(da)-1].Sub(t0))
		}
		// One 10 ms step plus 1 ns of prefill per 1-token prompt at 1e9/s:
		// 2 ns when b joined a's first step, 1 ns when the engine started
		// that step before b was submitted (the two goroutines race).
		if got := da[0].Sub(t0); got != 10*time.Millisecond+2 && got != 10*time.Millisecond+1 {
			t.Errorf("first request TTFT %v, want one 10ms step (+1 or 2 ns of prefill)", got)
		}

		// KV cache: 1000 tokens (63 blocks of 16); two requests of 600
		// both start (their prompts fit), but cannot both finish: when the
		// blocks run out the newer one is preempted, as in vLLM V1, and
		// resumes (recomputed) only after the older one has ended.
		t1 := time.Now()
		x, y := newSeq(t1, 100, 500), newSeq(t1, 100, 500)
		e.submit(x)
		e.submit(y)
		dx, dy := collect(t, x), collect(t, y)
		if !dy[0].Before(dx[len(dx)-1]) {
			t.Errorf("second request started at %v, after the first ended: it should start at once", dy[0].Sub(t1))
		}
		// Readmitted y may fill the cache again and be preempted again
		// (vLLM thrashes the same way), so count at least one.
		if n := e.gauges.preemptions.Load(); n < 1 {
			t.Errorf("%d preemptions, want at least 1", n)
		}
		if len(dy) != 500 || !dy[len(dy)-1].After(dx[len(dx)-1]) {
			t.Errorf("y produced %d tokens, the last at %v, x's last at %v: want 500, after x",
				len(dy), dy[len(dy)-1].Sub(t1), dx[len(dx)-1].Sub(t1))
		}
		synctest.Wait() // the engine publishes after the step
		if n := e.gauges.kvUsed.Load(); n != 0 {
			t.Errorf("%d KV blocks still held after both finished", n)
		}
	})
}

// TestBatchEnginePrefixCache: a prompt whose blocks an earlier request
// left in the cache skips their prefill; a reset forgets them.
func TestBatchEnginePrefixCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Prefill of 1,600 tokens takes 1 s at 1,600 tokens/s.
		m := Batching{MaxNumSeqs: 4, MaxNumBatchedTokens: 4096, PrefillTokensPerSec: 1600,
			DecodeBase: 10 * time.Millisecond, KVCacheTokens: 8192}
		e := newBatchEngine(m, true, fakeClockSleeper())
		defer e.close()
		hashes := make([]uint64, 100) // 100 full blocks
		for i := range hashes {
			hashes[i] = uint64(i + 1)
		}
		ttft := func() time.Duration {
			t0 := time.Now()
			s := newSeq(t0, 1600, 2)
			s.hashes = hashes
			e.submit(s)
			return collect(t, s)[0].Sub(t0)
		}
		cold := ttft()
		warm := ttft()
		if cold < time.Second || warm > 30*time.Millisecond {
			t.Errorf("TTFT cold %v, warm %v: want >= 1 s and one step (the last block is recomputed)", cold, warm)
		}
		if q, h := e.gauges.prefixQueries.Load(), e.gauges.prefixHits.Load(); q != 3200 || h != 1584 {
			t.Errorf("queries %d hits %d, want 3200 and 1584 (99 blocks: one token is always computed)", q, h)
		}
		e.gauges.resets.Add(1)
		if again := ttft(); again < time.Second {
			t.Errorf("TTFT after reset %v, want a cold prefill again", again)
		}
		if h := e.gauges.prefixHits.Load(); h != 1584 {
			t.Errorf("hits %d after a reset, want no new hits", h)
		}
	})
}

// TestBatchEngineCancel: a request whose client left frees its slot.
func TestBatchEngineCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := Batching{MaxNumSeqs: 1, MaxNumBatchedTokens: 64, PrefillTokensPerSec: 1e9,
			DecodeBase: 10 * time.Millisecond, KVCacheTokens: 1000}
		e := newBatchEngine(m, false, fakeClockSleeper())
		defer e.close()
		t0 := time.Now()
		a, b := newSeq(t0, 1, 1000-1), newSeq(t0, 1, 3)
		e.submit(a)
		e.submit(b)
		time.Sleep(25 * time.Millisecond)
		a.gone.Store(true)
		db := collect(t, b)
		if got := db[0].Sub(t0); got > 50*time.Millisecond {
			t.Errorf("second request waited %v: the cancelled one kept its slot", got)
		}
	})
}

// fakeClockSleeper is a sleeper for testing/synctest bubbles: timers only
// (a kernel sleep would not advance the fake clock).
func fakeClockSleeper() *sleeper { return newSleeper(0, false) }

// TestBatchEngineRampExact ramps a closed loop of c clients from 1 to 64
// against the "fast" preset's engine in virtual time, so the figures are
// the model's own, exact and independent of machine load: throughput
// n/(2ms+0.25ms*n) rises to the 16-slot cap and stays there; p99 TTFT
// climbs once requests queue.
func TestBatchEngineRampExact(t *testing.T) {
	p, _ := LookupPreset("fast")
	type level struct {
		tput float64
		p99  time.Duration
	}
	levels := map[int]level{}
	for _, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		synctest.Test(t, func(t *testing.T) {
			e := newBatchEngine(p.Batching, false, fakeClockSleeper())
			defer e.close()
			const out = 16
			perWorker := max(2, 64/c)
			t0 := time.Now()
			var mu sync.Mutex
			var ttfts []time.Duration
			var last time.Time
			var wg sync.WaitGroup
			for range c {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range perWorker {
						s := newSeq(time.Now(), 8, out)
						e.submit(s)
						dues := collect(t, s)
						mu.Lock()
						ttfts = append(ttfts, dues[0].Sub(s.arrival))
						if dues[out-1].After(last) {
							last = dues[out-1]
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			slices.Sort(ttfts)
			levels[c] = level{tput: float64(c*perWorker*out) / last.Sub(t0).Seconds(), p99: ttfts[len(ttfts)*99/100]}
			t.Logf("c=%2d: %5.0f tok/s, p99 TTFT %v", c, levels[c].tput, levels[c].p99)
		})
	}
	// Step with n decoding: 2ms + 0.25ms*n (+ tiny prefill); tok/s = n/step.
	// Slightly more at saturation: a sequence's prefill step does not pay
	// DecodePerSeq, so steps that admit new sequences are a little shorter.
	for c, want := range map[int]float64{1: 444, 4: 1333, 16: 2667, 64: 2667} {
		if got := levels[c].tput; got < want*0.9 || got > want*1.06 {
			t.Errorf("c=%d: %.0f tok/s, want about %.0f", c, got, want)
		}
	}
	for _, pair := range [][2]int{{1, 2}, {2, 4}, {4, 8}, {8, 16}} {
		if levels[pair[1]].tput <= levels[pair[0]].tput*1.2 {
			t.Errorf("throughput did not rise from %d to %d", pair[0], pair[1])
		}
	}
	if r := levels[64].tput / levels[16].tput; r < 0.97 || r > 1.04 {
		t.Errorf("throughput did not flatten: 64 vs 16 = %.2f", r)
	}
	if !(levels[64].p99 > 2*levels[32].p99 && levels[32].p99 > 4*levels[16].p99) {
		t.Errorf("p99 TTFT did not climb: 16 %v, 32 %v, 64 %v", levels[16].p99, levels[32].p99, levels[64].p99)
	}
}
