package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/record"
)

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// progressTick is how often the progress line is redrawn: a steady tick,
// whatever the request rate, so the line costs the same at 1 and 10,000
// requests per second.
const progressTick = 250 * time.Millisecond

// recentTTFTs is how many of the latest TTFTs the running percentiles
// cover (bounded memory, cheap to sort on each tick).
const recentTTFTs = 2048

// progress is the live status line of a run on a terminal, in the manner
// of k6 and Locust: done/total, ok/failed, request and token rates,
// running p50/p99 TTFT, elapsed and remaining time. Records arrive from
// the step's collector goroutine (add: it is a bench.Sink, progress.go);
// a ticker draws. Nothing is
// drawn when stderr is not a terminal.
type progress struct {
	w     io.Writer
	total int
	now   func() time.Time

	mu       sync.Mutex
	start    time.Time
	ok, fail int
	tokens   int
	ttfts    []float64 // ring of the latest TTFTs, seconds
	next     int
	stop     chan struct{}
	done     chan struct{}
}

// newProgress returns a progress line drawn on w when ttyCheck (w's
// underlying writer) is a terminal; otherwise a progress that draws
// nothing. total 0 means unknown (a run bounded by --duration).
func newProgress(ttyCheck, w io.Writer, total int, disabled bool) *progress {
	f, ok := ttyCheck.(*os.File)
	if disabled || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: w, total: total, now: time.Now}
}

// begin starts the clock and the ticker when dispatch starts (after the
// warm-ups), so the rates count only the timed run.
func (p *progress) begin(start time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.start = start
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	p.draw()
	go p.loop()
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// add counts one finished request.
func (p *progress) add(r *record.Record) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !r.Success {
		p.fail++
		return
	}
	p.ok++
	if r.OutputTokens != nil {
		p.tokens += *r.OutputTokens
	} else {
		p.tokens += len(r.ITL) + 1
	}
	if len(p.ttfts) < recentTTFTs {
		p.ttfts = append(p.ttfts, r.TTFT)
	} else {
		p.ttfts[p.next] = r.TTFT
		p.next = (p.next + 1) % recentTTFTs
	}
}

// finish stops the ticker and clears the line (the table follows).
func (p *progress) finish() {
	if p == nil || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.done
	fmt.Fprint(p.w, "\r\033[K")
}

func (p *progress) draw() {
	p.mu.Lock()
	line := p.line()
	p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K"+line)
}

// line formats the status; p.mu is held.
func (p *progress) line() string {
	elapsed := p.now().Sub(p.start)
	done := p.ok + p.fail
	var b strings.Builder
	if p.total > 0 {
		fmt.Fprintf(&b, "%d/%d done", done, p.total)
	} else {
		fmt.Fprintf(&b, "%d done", done)
	}
	fmt.Fprintf(&b, " (%d ok, %d failed)", p.ok, p.fail)
	if s := elapsed.Seconds(); s >= 0.5 {
		fmt.Fprintf(&b, " | %.1f req/s, %.0f tok/s", float64(done)/s, float64(p.tokens)/s)
	}
	if len(p.ttfts) > 0 {
		v := slices.Clone(p.ttfts)
		slices.Sort(v)
		fmt.Fprintf(&b, " | TTFT p50 %s p99 %s", ms(v[len(v)/2]), ms(v[min(len(v)-1, len(v)*99/100)]))
	}
	fmt.Fprintf(&b, " | %s", elapsed.Truncate(time.Second))
	if p.total > 0 && done > 0 && done < p.total && elapsed > time.Second {
		left := time.Duration(float64(elapsed) * float64(p.total-done) / float64(done))
		fmt.Fprintf(&b, ", ~%s left", left.Round(time.Second))
	}
	return b.String()
}

// ms formats seconds as milliseconds for the status line.
func ms(s float64) string {
	if s >= 10 {
		return fmt.Sprintf("%.0fs", s)
	}
	return fmt.Sprintf("%.0fms", s*1000)
}
