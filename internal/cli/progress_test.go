package cli

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressLine: the status line shows done/total, ok/failed, the
// rates, running TTFT percentiles and the time left; it is drawn at once
// and then on a steady tick, however many requests finish in between.
func TestProgressLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuf
		p := &progress{w: &buf, total: 20, now: time.Now}
		p.begin(time.Now())
		if got := buf.String(); !strings.Contains(got, "0/20 done (0 ok, 0 failed)") {
			t.Fatalf("first draw %q", got)
		}
		n := 4
		for i := range 10 {
			r := &record.Record{Success: i != 3, TTFT: float64(i+1) / 100, OutputTokens: &n}
			p.add(r) // many adds between ticks draw nothing
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		p.finish()
		out := buf.String()
		draws := strings.Count(out, "\r\033[K")
		// 1 at begin, one per 250 ms tick over 2 s, 1 clear at finish.
		if want := 1 + int(2*time.Second/progressTick) + 1; draws != want {
			t.Errorf("%d draws, want %d (a steady tick)", draws, want)
		}
		last := out[strings.LastIndex(out[:len(out)-len("\r\033[K")], "\r\033[K")+len("\r\033[K"):]
		for _, w := range []string{"10/20 done (9 ok, 1 failed)", "5.0 req/s, 18 tok/s", "TTFT p50 60ms p99 100ms", "2s, ~2s left"} {
			if !strings.Contains(last, w) {
				t.Errorf("line %q lacks %q", last, w)
			}
		}
	})
}

// TestProgressQuietOffTerminal: no terminal, no progress.
func TestProgressQuietOffTerminal(t *testing.T) {
	var buf strings.Builder
	if p := newProgress(&buf, &buf, 10, false); p != nil {
		t.Error("a progress line for a writer that is not a terminal")
	}
}
