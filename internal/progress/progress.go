// Package progress is the live status line of a step on a terminal, in
// the manner of k6 and Locust: done/total, ok/failed, request and token
// rates, running p50/p99 TTFT, elapsed and remaining time. It is a
// bench.Sink: records arrive from the step's collector goroutine, a
// ticker draws. It draws nothing when its writer is not a terminal, and
// it computes no figure that is reported: the table and the result come
// from metrics, over every record.
package progress

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// Tick is how often the line is redrawn: a steady tick, whatever the
// request rate, so the line costs the same at 1 and 10,000 requests per
// second.
const Tick = 250 * time.Millisecond

// recentTTFTs is how many of the latest TTFTs the running percentiles
// cover (bounded memory, cheap to sort on each tick).
const recentTTFTs = 2048

// erase returns the cursor to the line's start and erases the line.
const erase = "\r\033[K"

// Bar is the status line of one step. A nil *Bar draws nothing, so a
// step off a terminal needs no branch.
type Bar struct {
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

var _ bench.Sink = (*Bar)(nil)

// New returns a status line drawn on w when ttyCheck (w's underlying
// writer) is a terminal and disabled (--disable-tqdm) is false;
// otherwise nil, which draws nothing. total 0 means unknown (a step
// bounded by time).
func New(ttyCheck, w io.Writer, total int, disabled bool) *Bar {
	f, ok := ttyCheck.(*os.File)
	if disabled || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return On(w, total)
}

// On returns a status line drawn on w whatever w is (New decides whether
// there is to be one).
func On(w io.Writer, total int) *Bar {
	return &Bar{w: w, total: total, now: time.Now}
}

// Begin starts the clock and the ticker when dispatch starts, after the
// warm-ups, so the rates count only the timed run (bench.Sink).
func (p *Bar) Begin(start time.Time, _ record.Header) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.start = start
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	p.draw()
	go p.loop()
	return nil
}

func (p *Bar) loop() {
	defer close(p.done)
	t := time.NewTicker(Tick)
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

// Record counts one finished request (bench.Sink). Its tokens are the
// output tokens the server reported, else one per chunk received.
func (p *Bar) Record(r *record.Record) {
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

// End stops the ticker and clears the line, whatever became of the step
// (bench.Sink): the table follows.
func (p *Bar) End(*bench.Outcome) {
	if p == nil || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.done
	fmt.Fprint(p.w, erase)
}

func (p *Bar) draw() {
	p.mu.Lock()
	line := p.line()
	p.mu.Unlock()
	fmt.Fprint(p.w, erase+line)
}

// line formats the status; p.mu is held. The rates wait for half a
// second of run (a rate over a few milliseconds means nothing), the time
// left for one second: elapsed × (total − done) / done.
func (p *Bar) line() string {
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

// ms formats seconds as milliseconds for the status line (whole seconds
// from 10 s up).
func ms(s float64) string {
	if s >= 10 {
		return fmt.Sprintf("%.0fs", s)
	}
	return fmt.Sprintf("%.0fms", s*1000)
}
