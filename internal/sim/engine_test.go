package sim

import (
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
		e := newFixedEngine(50*time.Millisecond, 10*time.Millisecond, 0)
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
		e := newBatchEngine(m, 0)
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
// finished; and a request whose context does not fit the KV cache waits.
func TestBatchEngineQueueing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := Batching{MaxNumSeqs: 2, MaxNumBatchedTokens: 64, PrefillTokensPerSec: 1e9,
			DecodeBase: 10 * time.Millisecond, KVCacheTokens: 1000}
		e := newBatchEngine(m, 0)
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
		// One 10 ms step plus 2 ns of prefill (two 1-token prompts at 1e9/s).
		if got := da[0].Sub(t0); got != 10*time.Millisecond+2 {
			t.Errorf("first request TTFT %v, want one 10ms step", got)
		}

		// KV cache: 1000 tokens; two requests of 600 cannot run together.
		t1 := time.Now()
		x, y := newSeq(t1, 100, 500), newSeq(t1, 100, 500)
		e.submit(x)
		e.submit(y)
		dx, dy := collect(t, x), collect(t, y)
		if !dy[0].After(dx[len(dx)-1]) {
			t.Errorf("KV cache overcommitted: second request started at %v before the first ended at %v",
				dy[0].Sub(t1), dx[len(dx)-1].Sub(t1))
		}
	})
}

// TestBatchEngineCancel: a request whose client left frees its slot.
func TestBatchEngineCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := Batching{MaxNumSeqs: 1, MaxNumBatchedTokens: 64, PrefillTokensPerSec: 1e9,
			DecodeBase: 10 * time.Millisecond, KVCacheTokens: 1000}
		e := newBatchEngine(m, 0)
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
