package sim

import (
	"container/heap"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// seq is one request as the engine sees it. The engine goroutine produces
// tokens; the request's goroutine waits on notify and writes them out. The
// engine never blocks on a request: notify has room for one wake-up and a
// pending one already covers any later tokens.
type seq struct {
	arrival time.Time
	prompt  int // prompt tokens
	target  int // output tokens to produce (EOS already applied)
	notify  chan struct{}
	gone    atomic.Bool // the client went away; the engine drops the seq

	mu   sync.Mutex
	dues []time.Time // due time of each token produced so far

	// engine-private state
	made      int       // tokens produced (engine's copy of len(dues))
	prefilled int       // batching: prompt tokens prefilled
	nextDue   time.Time // fixed: when the next token is due
	index     int       // fixed: heap index
}

func newSeq(arrival time.Time, prompt, target int) *seq {
	// dues grows as tokens come: a request may ask for tens of thousands
	// of tokens and leave after a few.
	return &seq{arrival: arrival, prompt: prompt, target: target,
		notify: make(chan struct{}, 1), dues: make([]time.Time, 0, min(target, 256))}
}

// progress returns how many tokens are available.
func (s *seq) progress() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.dues)
}

// dueOf returns when token i was due (i < progress()).
func (s *seq) dueOf(i int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dues[i]
}

// push records one produced token due at t (engine goroutine only).
func (s *seq) push(t time.Time) {
	s.made++
	s.mu.Lock()
	s.dues = append(s.dues, t)
	s.mu.Unlock()
}

// wake tells the request goroutine there is news, without blocking.
func (s *seq) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// engine produces tokens for submitted sequences. One goroutine drives all
// sequences: there is no timer per token per stream.
type engine interface {
	submit(s *seq)
	close()
	engineGauges() *engineGauges
}

// sleeper waits for absolute deadlines with one reused timer. Go's
// runtime sleeps in whole milliseconds when the process is idle (epoll
// timeouts are in ms), so a plain timer can fire up to ~1 ms late. The
// sleeper therefore uses the timer only up to fineWindow before the
// deadline and sleeps the rest in the kernel (nanosleep, precise to the
// kernel's timer slack, ~50 µs), or busy-waits the last spin of it when
// SpinWait is set. Arrivals during the short final sleep wait for it to end
// (at most fineWindow), which only delays work that is not yet due.
type sleeper struct {
	t       *time.Timer
	spin    time.Duration
	precise bool // use preciseSleep (off under testing/synctest's fake clock)
}

// fineWindow is how close to a deadline the sleeper stops trusting the
// runtime's timer.
const fineWindow = 1500 * time.Microsecond

// minPreciseSleep is the shortest wait slept in the kernel. Shorter waits
// happen when deadlines are dense, i.e. when the process is busy; then the
// runtime checks timers at every goroutine switch and its timer is
// precise, while a kernel sleep would hold a P in a syscall per event.
const minPreciseSleep = 200 * time.Microsecond

func newSleeper(spin time.Duration, precise bool) *sleeper {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &sleeper{t: t, spin: spin, precise: precise}
}

// until waits for deadline (true), or returns early (false) after handing
// an arrival to onWake or when quit fires. A zero deadline waits only for
// wake/quit.
func (sl *sleeper) until(deadline time.Time, wake <-chan *seq, onWake func(*seq), quit <-chan struct{}) bool {
	for {
		if deadline.IsZero() {
			select {
			case s := <-wake:
				onWake(s)
			case <-quit:
			}
			return false
		}
		d := time.Until(deadline)
		switch {
		case d <= 0:
			return true
		case d <= sl.spin:
			for time.Now().Before(deadline) {
				select {
				case <-quit:
					return false
				default:
					runtime.Gosched()
				}
			}
			return true
		case sl.precise && d >= minPreciseSleep && d <= fineWindow && preciseSleep(d-sl.spin):
			continue
		}
		coarse := d - fineWindow
		if !sl.precise || coarse <= 0 {
			coarse = d - sl.spin // no precise sleep
		}
		sl.t.Reset(coarse)
		select {
		case <-sl.t.C:
		case s := <-wake:
			sl.t.Stop()
			onWake(s)
			return false
		case <-quit:
			sl.t.Stop()
			return false
		}
	}
}

// mailbox is what both engines share: arrivals go in, quit stops the
// engine goroutine, done closes when it has stopped; gauges is what the
// engine last published about itself.
type mailbox struct {
	in     chan *seq
	quit   chan struct{}
	done   chan struct{}
	gauges engineGauges
}

// engineGauges is the engine's state as /metrics shows it. The engine
// goroutine stores it (a few atomic stores per loop, no lock); scrapes
// load it.
type engineGauges struct {
	// running: sequences in the batch (batching) or between arrival and
	// last token (fixed); waiting: queued for a batch slot or KV space.
	running, waiting atomic.Int64
	// kvUsed is KV-cache tokens reserved by running sequences (batching).
	kvUsed atomic.Int64
	// steps counts engine steps (batching) completed.
	steps atomic.Uint64
}

func (m *mailbox) engineGauges() *engineGauges { return &m.gauges }

func newMailbox() mailbox {
	return mailbox{in: make(chan *seq, 4096), quit: make(chan struct{}), done: make(chan struct{})}
}

// submit hands s to the engine (dropped once the engine stopped).
func (m *mailbox) submit(s *seq) {
	select {
	case m.in <- s:
	case <-m.quit:
	}
}

// close stops the engine and waits for its goroutine to end.
func (m *mailbox) close() {
	close(m.quit)
	<-m.done
}

// fixedEngine gives token i (0-based) of every request the due time
// arrival + TTFT + i*ITL, whatever the load. A min-heap of next due times
// and one timer drive all sequences.
type fixedEngine struct {
	ttft, itl time.Duration
	mailbox
	h  dueHeap
	sl *sleeper
}

func newFixedEngine(ttft, itl time.Duration, sl *sleeper) *fixedEngine {
	e := &fixedEngine{ttft: ttft, itl: itl, mailbox: newMailbox(), sl: sl}
	go e.loop()
	return e
}

func (e *fixedEngine) add(s *seq) {
	if s.target == 0 {
		s.wake()
		return
	}
	s.nextDue = s.arrival.Add(e.ttft)
	heap.Push(&e.h, s)
}

func (e *fixedEngine) loop() {
	defer close(e.done)
	for {
		// Take every queued arrival first so none waits behind a timer.
		for drained := false; !drained; {
			select {
			case s := <-e.in:
				e.add(s)
			default:
				drained = true
			}
		}
		now := time.Now()
		for len(e.h) > 0 && !e.h[0].nextDue.After(now) {
			s := e.h[0]
			if s.gone.Load() {
				heap.Pop(&e.h)
				continue
			}
			// Catch up on every token already due (after a late wake-up),
			// each stamped with its own scheduled time.
			for s.made < s.target && !s.nextDue.After(now) {
				s.push(s.nextDue)
				s.nextDue = s.nextDue.Add(e.itl)
			}
			s.wake()
			if s.made >= s.target {
				heap.Pop(&e.h)
			} else {
				heap.Fix(&e.h, 0)
			}
		}
		e.gauges.running.Store(int64(len(e.h)))
		var next time.Time
		if len(e.h) > 0 {
			next = e.h[0].nextDue
		}
		e.sl.until(next, e.in, e.add, e.quit)
		select {
		case <-e.quit:
			return
		default:
		}
	}
}

// dueHeap orders sequences by next due time.
type dueHeap []*seq

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].nextDue.Before(h[j].nextDue) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *dueHeap) Push(x any) {
	s := x.(*seq)
	s.index = len(*h)
	*h = append(*h, s)
}
func (h *dueHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return s
}

// batchEngine is the continuous-batching model documented on Batching.
type batchEngine struct {
	m Batching
	mailbox
	waiting []*seq
	running []*seq
	kvUsed  int
	sl      *sleeper
}

func newBatchEngine(m Batching, sl *sleeper) *batchEngine {
	e := &batchEngine{m: m, mailbox: newMailbox(), sl: sl}
	go e.loop()
	return e
}

func (e *batchEngine) add(s *seq) {
	if s.target == 0 {
		s.wake()
		return
	}
	e.waiting = append(e.waiting, s)
}

func (e *batchEngine) loop() {
	defer close(e.done)
	var stepStart time.Time
	for {
		for drained := false; !drained; {
			select {
			case s := <-e.in:
				e.add(s)
			default:
				drained = true
			}
		}
		e.dropGone()
		e.admit()
		e.publish()
		if len(e.running) == 0 {
			// Idle: wait for an arrival; the next step starts then.
			e.sl.until(time.Time{}, e.in, e.add, e.quit)
			select {
			case <-e.quit:
				return
			default:
			}
			stepStart = time.Time{}
			continue
		}
		now := time.Now()
		// Steps run back to back on the model's clock; resynchronise only
		// if the loop fell far behind (e.g. the process was descheduled).
		if stepStart.IsZero() || now.Sub(stepStart) > 20*time.Millisecond {
			stepStart = now
		}
		dt := e.plan()
		stepEnd := stepStart.Add(dt)
		for {
			if e.sl.until(stepEnd, e.in, e.add, e.quit) {
				break
			}
			select {
			case <-e.quit:
				return
			default:
			}
			// Arrivals during a step wait for the next one (as in vLLM).
		}
		e.finishStep(stepEnd)
		e.gauges.steps.Add(1)
		e.publish()
		stepStart = stepEnd
	}
}

// publish stores the batch's state for /metrics.
func (e *batchEngine) publish() {
	e.gauges.running.Store(int64(len(e.running)))
	e.gauges.waiting.Store(int64(len(e.waiting)))
	e.gauges.kvUsed.Store(int64(e.kvUsed))
}

func (e *batchEngine) dropGone() {
	keep := e.running[:0]
	for _, s := range e.running {
		if s.gone.Load() {
			e.kvUsed -= s.prompt + s.target
			continue
		}
		keep = append(keep, s)
	}
	clear(e.running[len(keep):])
	e.running = keep
	w := e.waiting[:0]
	for _, s := range e.waiting {
		if !s.gone.Load() {
			w = append(w, s)
		}
	}
	clear(e.waiting[len(w):])
	e.waiting = w
}

// admit moves waiting sequences into the batch, oldest first, while a
// batch slot is free and the whole context fits in the KV cache.
func (e *batchEngine) admit() {
	i := 0
	for ; i < len(e.waiting); i++ {
		s := e.waiting[i]
		need := s.prompt + s.target
		if len(e.running) >= e.m.MaxNumSeqs || e.kvUsed+need > e.m.KVCacheTokens {
			break
		}
		e.kvUsed += need
		e.running = append(e.running, s)
	}
	e.waiting = e.waiting[i:]
}

// plan works out this step's duration, advancing each prefilling
// sequence's prefill by the chunk this step processes.
func (e *batchEngine) plan() time.Duration {
	budget := e.m.MaxNumBatchedTokens
	decodes, ctx := 0, 0
	for _, s := range e.running {
		if s.prefilled >= s.prompt {
			decodes++
			ctx += s.prompt + s.made
		}
	}
	budget -= decodes
	prefill := 0
	for _, s := range e.running {
		if s.prefilled < s.prompt && budget > 0 {
			chunk := min(s.prompt-s.prefilled, budget)
			s.prefilled += chunk // takes effect at the end of this step
			budget -= chunk
			prefill += chunk
			ctx += s.prefilled
		}
	}
	dt := e.m.DecodeBase + time.Duration(decodes)*e.m.DecodePerSeq +
		time.Duration(ctx)*e.m.DecodePerKVToken +
		time.Duration(float64(prefill)/e.m.PrefillTokensPerSec*float64(time.Second))
	return dt
}

// finishStep hands out this step's tokens: one to every sequence that was
// decoding and a first token to every sequence whose prefill completed.
func (e *batchEngine) finishStep(t time.Time) {
	keep := e.running[:0]
	for _, s := range e.running {
		if s.prefilled >= s.prompt && !s.gone.Load() {
			s.push(t)
			s.wake()
		}
		if s.made >= s.target || s.gone.Load() {
			e.kvUsed -= s.prompt + s.target
			continue
		}
		keep = append(keep, s)
	}
	clear(e.running[len(keep):])
	e.running = keep
}
