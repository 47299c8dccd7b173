package sim

import (
	"container/heap"
	"container/list"
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

	// hashes are the prompt's full KV blocks' chained hashes (the prefix
	// cache's keys); set before submit, read-only after.
	hashes []uint64
	// scheduled is when the engine first admitted the sequence (under mu).
	scheduled time.Time

	// engine-private state
	made      int       // tokens produced (engine's copy of len(dues))
	prefilled int       // batching: context tokens prefilled
	need      int       // batching: tokens to prefill (prompt; prompt+made after a preemption)
	shared    []*cblock // batching: prefix-cache blocks held (the context's first blocks)
	private   int       // batching: other KV blocks held
	nextDue   time.Time // fixed: when the next token is due
	index     int       // fixed: heap index
}

// setScheduled records the first admission (engine goroutine).
func (s *seq) setScheduled(t time.Time) {
	s.mu.Lock()
	if s.scheduled.IsZero() {
		s.scheduled = t
	}
	s.mu.Unlock()
}

// scheduledAt is when the engine first admitted the sequence (zero if never).
func (s *seq) scheduledAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scheduled
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
	// kvUsed and kvTotal are KV-cache blocks held by running sequences and
	// the cache's size in blocks (batching).
	kvUsed, kvTotal atomic.Int64
	// steps counts engine steps (batching) completed.
	steps atomic.Uint64
	// preemptions counts sequences sent back to waiting for KV space;
	// prefixQueries and prefixHits count prompt tokens looked up in the
	// prefix cache and found there (vLLM's counters).
	preemptions, prefixQueries, prefixHits atomic.Int64
	// busyNs is the time the engine spent in steps (the GPU's busy time).
	busyNs atomic.Int64
	// resets counts POST /reset_prefix_cache calls; the engine applies a
	// new one before it next admits anything.
	resets atomic.Uint64
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
	s.setScheduled(s.arrival) // no queue: every request runs at once
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

// blockSize is the KV cache's block size in tokens (vLLM's default).
const blockSize = 16

// blocksFor is how many blocks hold n tokens.
func blocksFor(n int) int { return (n + blockSize - 1) / blockSize }

// cblock is a KV block in the prefix cache: a full prompt block, keyed by
// the chained hash of its tokens and all before it. ref counts running
// sequences holding it; a block nobody holds stays cached (in the free
// list, least recently freed first) until its space is needed.
type cblock struct {
	hash uint64
	ref  int
	dead bool // dropped from the cache by a reset while held
	elem *list.Element
}

// batchEngine is the continuous-batching model documented on Batching.
type batchEngine struct {
	m Batching
	mailbox
	waiting []*seq
	running []*seq
	sl      *sleeper

	// KV cache, in blocks of blockSize tokens: used are held by running
	// sequences; the rest are free, some of them still cached.
	total, used int
	prefix      bool
	cache       map[uint64]*cblock
	free        *list.List // cached blocks nobody holds, LRU first
	resetSeen   uint64
	preempted   bool // a preemption this step: admit nothing (as vLLM V1)
}

func newBatchEngine(m Batching, prefix bool, sl *sleeper) *batchEngine {
	e := &batchEngine{m: m, mailbox: newMailbox(), sl: sl, total: blocksFor(m.KVCacheTokens), prefix: prefix,
		cache: map[uint64]*cblock{}, free: list.New()}
	e.gauges.kvTotal.Store(int64(e.total))
	go e.loop()
	return e
}

func (e *batchEngine) add(s *seq) {
	if s.target == 0 {
		s.wake()
		return
	}
	s.need = s.prompt
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
		if r := e.gauges.resets.Load(); r != e.resetSeen {
			e.resetSeen = r
			e.resetCache()
		}
		e.dropGone()
		e.preempted = false
		e.grow()
		if !e.preempted {
			e.admit(time.Now())
		}
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
		e.gauges.busyNs.Add(int64(dt))
		e.publish()
		stepStart = stepEnd
	}
}

// publish stores the batch's state for /metrics.
func (e *batchEngine) publish() {
	e.gauges.running.Store(int64(len(e.running)))
	e.gauges.waiting.Store(int64(len(e.waiting)))
	e.gauges.kvUsed.Store(int64(e.used))
}

// allocate takes n free blocks, uncached ones first, then the least
// recently freed cached ones (evicting them from the cache).
func (e *batchEngine) allocate(n int) bool {
	if e.total-e.used < n {
		return false
	}
	for uncached := e.total - e.used - e.free.Len(); uncached < n; uncached++ {
		cb := e.free.Remove(e.free.Front()).(*cblock)
		cb.elem = nil
		delete(e.cache, cb.hash)
	}
	e.used += n
	return true
}

// release frees s's blocks; prompt blocks stay cached for later hits.
func (e *batchEngine) release(s *seq) {
	e.used -= s.private
	s.private = 0
	for _, cb := range s.shared {
		cb.ref--
		if cb.ref == 0 {
			e.used--
			if !cb.dead {
				cb.elem = e.free.PushBack(cb)
			}
		}
	}
	s.shared = nil
}

// resetCache empties the prefix cache (POST /reset_prefix_cache): cached
// blocks nobody holds become plain free blocks, held ones stop matching.
func (e *batchEngine) resetCache() {
	for _, cb := range e.cache {
		cb.dead = true
		cb.elem = nil
	}
	e.cache = map[uint64]*cblock{}
	e.free.Init()
}

func (e *batchEngine) dropGone() {
	keep := e.running[:0]
	for _, s := range e.running {
		if s.gone.Load() {
			e.release(s)
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

// grow gives every decoding sequence the block its next token needs. When
// none is free, the newest running sequence is preempted, as vLLM V1
// does: its blocks are freed and it goes back to the head of the queue,
// to be recomputed (prompt and tokens so far) when readmitted; the tokens
// it already sent stay sent.
func (e *batchEngine) grow() {
	for i := 0; i < len(e.running); i++ {
		s := e.running[i]
		if s.prefilled < s.need {
			continue // prefill blocks were allocated at admission
		}
		for want := blocksFor(s.prompt + s.made + 1); len(s.shared)+s.private < want; {
			if e.allocate(1) {
				s.private++
				continue
			}
			victim := e.running[len(e.running)-1]
			e.running[len(e.running)-1] = nil
			e.running = e.running[:len(e.running)-1]
			e.release(victim)
			victim.prefilled, victim.need = 0, victim.prompt+victim.made
			e.waiting = append([]*seq{victim}, e.waiting...)
			e.gauges.preemptions.Add(1)
			e.preempted = true
			if victim == s {
				break
			}
		}
	}
}

// admit moves waiting sequences into the batch, oldest first, while a
// batch slot is free and the KV cache has blocks for the context to
// prefill. With the prefix cache, the context's leading full blocks that
// are cached are shared instead of computed (at least one token is
// always computed, as in vLLM): they cost no prefill time.
func (e *batchEngine) admit(now time.Time) {
	i := 0
	for ; i < len(e.waiting); i++ {
		s := e.waiting[i]
		if len(e.running) >= e.m.MaxNumSeqs {
			break
		}
		var hits []*cblock
		revive := 0 // hit blocks nobody holds: they leave the free list
		if e.prefix {
			for k, h := range s.hashes {
				cb := e.cache[h]
				if cb == nil || (k+1)*blockSize > s.need-1 {
					break
				}
				hits = append(hits, cb)
				if cb.ref == 0 {
					revive++
				}
			}
		}
		fresh := blocksFor(s.need) - len(hits)
		if e.total-e.used-revive < fresh {
			break
		}
		for _, cb := range hits {
			if cb.ref == 0 {
				e.free.Remove(cb.elem)
				cb.elem = nil
				e.used++
			}
			cb.ref++
		}
		e.allocate(fresh)
		s.shared, s.private = hits, fresh
		s.prefilled = len(hits) * blockSize
		if e.prefix {
			e.gauges.prefixQueries.Add(int64(s.need))
			e.gauges.prefixHits.Add(int64(s.prefilled))
		}
		s.setScheduled(now)
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
		if s.prefilled >= s.need {
			decodes++
			ctx += s.prompt + s.made
		}
	}
	budget -= decodes
	prefill := 0
	for _, s := range e.running {
		if s.prefilled < s.need && budget > 0 {
			chunk := min(s.need-s.prefilled, budget)
			s.prefilled += chunk // takes effect at the end of this step
			budget -= chunk
			prefill += chunk
			ctx += s.prefilled
			if s.prefilled >= s.need {
				e.register(s)
			}
		}
	}
	dt := e.m.DecodeBase + time.Duration(decodes)*e.m.DecodePerSeq +
		time.Duration(ctx)*e.m.DecodePerKVToken +
		time.Duration(float64(prefill)/e.m.PrefillTokensPerSec*float64(time.Second))
	return dt
}

// register puts s's computed full prompt blocks into the prefix cache (a
// block another sequence cached first stays s's own).
func (e *batchEngine) register(s *seq) {
	if !e.prefix {
		return
	}
	for k := len(s.shared); k < len(s.hashes) && s.private > 0; k++ {
		h := s.hashes[k]
		if e.cache[h] != nil {
			return
		}
		cb := &cblock{hash: h, ref: 1}
		e.cache[h] = cb
		s.shared = append(s.shared, cb)
		s.private--
	}
}

// finishStep hands out this step's tokens: one to every sequence that was
// decoding and a first token (or, after a preemption, the next one) to
// every sequence whose prefill completed.
func (e *batchEngine) finishStep(t time.Time) {
	keep := e.running[:0]
	for _, s := range e.running {
		if s.prefilled >= s.need && !s.gone.Load() {
			s.push(t)
			s.wake()
		}
		if s.made >= s.target || s.gone.Load() {
			e.release(s)
			continue
		}
		keep = append(keep, s)
	}
	clear(e.running[len(keep):])
	e.running = keep
}
