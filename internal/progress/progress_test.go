package progress

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// TestBarDraws: the status line is drawn at once and then on a steady
// tick, however many requests finish in between, and cleared at the end.
// buf is read before the first tick and after End, which waits for the
// ticker's goroutine: no write runs alongside a read.
func TestBarDraws(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf strings.Builder
		p := On(&buf, 20)
		if err := p.Begin(time.Now(), record.Header{}); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); !strings.Contains(got, "0/20 done (0 ok, 0 failed)") {
			t.Fatalf("first draw %q", got)
		}
		n := 4
		for i := range 10 {
			p.Record(&record.Record{Success: i != 3, TTFT: float64(i+1) / 100, OutputTokens: &n}) // many records between ticks draw nothing
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		p.End(nil)
		time.Sleep(time.Second) // the ticker is gone: no draw after End
		synctest.Wait()
		out := buf.String()
		// 1 at Begin, one per 250 ms tick over 2 s, 1 clear at End.
		if draws, want := strings.Count(out, erase), 1+int(2*time.Second/Tick)+1; draws != want {
			t.Errorf("%d draws, want %d (a steady tick)", draws, want)
		}
		if !strings.HasSuffix(out, erase) {
			t.Errorf("the line is not cleared at the end: %q", out)
		}
		last := out[strings.LastIndex(out[:len(out)-len(erase)], erase)+len(erase) : len(out)-len(erase)]
		if want := "10/20 done (9 ok, 1 failed) | 5.0 req/s, 18 tok/s | TTFT p50 60ms p99 100ms | 2s, ~2s left"; last != want {
			t.Errorf("last line %q, want %q", last, want)
		}
	})
}

// TestBarLine: the line's parts at a given instant, on a fake clock.
func TestBarLine(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	four := 4
	ok := func(ttft float64) record.Record { return record.Record{Success: true, TTFT: ttft, OutputTokens: &four} }
	for _, c := range []struct {
		name    string
		total   int
		elapsed time.Duration
		recs    []record.Record
		want    string
	}{
		{"nothing yet: no rates, no percentiles", 10, 0, nil, "0/10 done (0 ok, 0 failed) | 0s"},
		{"under half a second: no rates", 10, 400 * time.Millisecond, []record.Record{ok(0.05)}, "1/10 done (1 ok, 0 failed) | TTFT p50 50ms p99 50ms | 0s"},
		{"rates and the time left after a second", 10, 2 * time.Second, []record.Record{ok(0.05), ok(0.15)},
			"2/10 done (2 ok, 0 failed) | 1.0 req/s, 4 tok/s | TTFT p50 150ms p99 150ms | 2s, ~8s left"},
		{"a failure counts as done, not in the rates of tokens", 4, 1500 * time.Millisecond, []record.Record{ok(0.02), {Success: false}},
			"2/4 done (1 ok, 1 failed) | 1.3 req/s, 3 tok/s | TTFT p50 20ms p99 20ms | 1s, ~2s left"},
		{"no token count: one per chunk", 0, time.Second, []record.Record{{Success: true, TTFT: 0.01, ITL: []float64{0.1, 0.1}}},
			"1 done (1 ok, 0 failed) | 1.0 req/s, 3 tok/s | TTFT p50 10ms p99 10ms | 1s"},
		{"all done: no time left", 1, 3 * time.Second, []record.Record{ok(12)}, "1/1 done (1 ok, 0 failed) | 0.3 req/s, 1 tok/s | TTFT p50 12s p99 12s | 3s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := &Bar{total: c.total, start: start, now: func() time.Time { return start.Add(c.elapsed) }}
			for i := range c.recs {
				p.Record(&c.recs[i])
			}
			if got := p.line(); got != c.want {
				t.Errorf("line %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestBarPercentilesRing: the percentiles cover only the latest
// recentTTFTs requests.
func TestBarPercentilesRing(t *testing.T) {
	t.Parallel()
	p := &Bar{now: time.Now}
	for range recentTTFTs {
		p.Record(&record.Record{Success: true, TTFT: 5})
	}
	for range recentTTFTs {
		p.Record(&record.Record{Success: true, TTFT: 0.001})
	}
	p.start = p.now()
	if got := p.line(); !strings.Contains(got, "TTFT p50 1ms p99 1ms") {
		t.Errorf("old TTFTs still counted: %q", got)
	}
}

// TestNewQuietOffTerminal: no terminal, or --disable-tqdm, no line; a
// nil Bar is a sink that does nothing.
func TestNewQuietOffTerminal(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	if p := New(&buf, &buf, 10, false); p != nil {
		t.Error("a progress line for a writer that is not a terminal")
	}
	var p *Bar
	if err := p.Begin(time.Now(), record.Header{}); err != nil {
		t.Error(err)
	}
	p.Record(&record.Record{})
	p.End(nil)
	if buf.Len() != 0 {
		t.Errorf("a nil Bar wrote %q", buf.String())
	}
}
