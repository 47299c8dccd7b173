package bench

import (
	"math"
	"net/http/httptrace"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// schedLatencies is the runtime's histogram of the time goroutines spent
// runnable before running: a stamp taken by a goroutine that waited that
// long is late by as much (docs/fidelity.md).
const schedLatencies = "/sched/latencies:seconds"

// sampler measures the client's own health over the timed run: CPU time
// and the scheduler-latency histogram at start and stop (their
// differences cover the run and nothing else), and connections opened,
// counted by an httptrace hook on every request's context (any backend
// built on net/http, SageMaker's SDK included).
type sampler struct {
	wall0 time.Time
	cpu0  time.Duration
	sched []uint64
	conns atomic.Int64
	// open is conns at start (preconnect and warm-ups are not the run's).
	open  int64
	trace *httptrace.ClientTrace
}

func newSampler() *sampler {
	s := &sampler{}
	s.trace = &httptrace.ClientTrace{ConnectDone: func(_, _ string, err error) {
		if err == nil {
			s.conns.Add(1)
		}
	}}
	return s
}

// start marks the beginning of the timed run.
func (s *sampler) start() {
	s.open = s.conns.Load()
	s.sched = schedCounts(nil)
	s.cpu0, s.wall0 = cpuTime(), time.Now()
}

// schedCounts reads the scheduler-latency histogram; with buckets it
// also returns their boundaries.
func schedCounts(buckets *[]float64) []uint64 {
	sm := []metrics.Sample{{Name: schedLatencies}}
	metrics.Read(sm)
	if sm[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	h := sm[0].Value.Float64Histogram()
	if buckets != nil {
		*buckets = h.Buckets
	}
	return slices.Clone(h.Counts)
}

// stop ends the measurement and returns it, with the dispatch figures
// taken from the records.
func (s *sampler) stop(p *Plan, recs []record.Record) selfcheck.Measurements {
	wall, cpu := time.Since(s.wall0), cpuTime()
	m := selfcheck.Measurements{Wall: wall, Cores: runtime.GOMAXPROCS(0), Connections: s.conns.Load() - s.open}
	if cpu >= 0 && s.cpu0 >= 0 {
		m.CPU = cpu - s.cpu0
	}
	var buckets []float64
	if now := schedCounts(&buckets); s.sched != nil && len(now) == len(s.sched) {
		for i := range now {
			now[i] -= s.sched[i]
		}
		m.SchedLatencyP99 = histQuantile(now, buckets, 0.99)
	}
	dispatchFigures(&m, p, recs)
	inFlightFigures(&m, p, recs)
	return m
}

// inFlightFigures fills what a closed loop asked to keep in flight and
// what it could hold: the connection pool's cap, and, for users who do
// not think (a fixed concurrency) and start together, the peak overlap
// of the records' [start, end] intervals, measured once there are
// enough records for every user to have had two turns. Open loops and
// conversations are not judged: their in-flight count is the server's.
func inFlightFigures(m *selfcheck.Measurements, p *Plan, recs []record.Record) {
	u := p.Load.Users
	if u == nil || p.Conversations != nil {
		return
	}
	wanted := u.Users
	if u.Workers > 1 {
		// This worker's share: the ids ≡ Worker modulo Workers.
		wanted = (u.Users - u.Worker + u.Workers - 1) / u.Workers
	}
	m.InFlightWanted = wanted
	held := 0
	if u.Think.Max == 0 && u.SpawnRate == 0 && len(recs) >= 2*wanted {
		held = peakOverlap(recs)
	}
	if c := p.ConnLimit; c > 0 && c < wanted && (held == 0 || held > c) {
		held = c
	}
	m.InFlightHeld = held
}

// peakOverlap is the most records whose [StartTime, End()] intervals
// overlap at one instant (an end before a start at the same instant).
func peakOverlap(recs []record.Record) int {
	type edge struct {
		at    float64
		delta int
	}
	edges := make([]edge, 0, 2*len(recs))
	for i := range recs {
		r := &recs[i]
		edges = append(edges, edge{r.StartTime, 1}, edge{r.End(), -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.delta - b.delta
	})
	n, peak := 0, 0
	for _, e := range edges {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}

// histQuantile is the q-quantile of a runtime/metrics histogram (counts[i]
// between buckets[i] and buckets[i+1] seconds), taken as the bucket's
// upper bound (its lower one for the open last bucket): never optimistic.
func histQuantile(counts []uint64, buckets []float64, q float64) time.Duration {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var acc uint64
	for i, c := range counts {
		acc += c
		if acc >= want {
			v := buckets[i+1]
			if math.IsInf(v, 1) {
				v = buckets[i]
			}
			return time.Duration(v * float64(time.Second))
		}
	}
	return 0
}

// dispatchFigures fills the dispatch lag p99, the target and achieved
// rates and the events (token chunks stamped) from the records. The lag
// is the table's (internal/metrics): sent − intended, less the wait for a
// slot under --max-concurrency; without a cap, the time a request's
// goroutine waited to run is the client's own lag.
func dispatchFigures(m *selfcheck.Measurements, p *Plan, recs []record.Record) {
	lags := make([]float64, 0, len(recs))
	last := 0.0
	capped := p.Load.MaxConcurrency > 0
	for i := range recs {
		r := &recs[i]
		if r.TTFT > 0 {
			m.Events += int64(1 + len(r.ITL))
		}
		arrived := r.StartTime
		if capped {
			arrived -= r.QueueTime
		}
		last = max(last, arrived)
		if r.IntendedTime != nil {
			lags = append(lags, max(0, arrived-*r.IntendedTime))
		}
	}
	if len(lags) > 0 {
		slices.Sort(lags)
		idx := min(len(lags)-1, int(math.Ceil(0.99*float64(len(lags))))-1)
		m.DispatchLagP99 = time.Duration(lags[max(idx, 0)] * float64(time.Second))
	}
	a := p.Load.Arrivals
	if p.Load.Users == nil && p.Schedule == nil && a.RampStrategy == "" {
		m.TargetRate = a.Rate
		if last > 0 && len(recs) > 1 && !math.IsInf(a.Rate, 1) {
			// n requests over the time to the last: the schedule puts the
			// last at about n/rate (vLLM rescales its gaps so).
			m.AchievedRate = float64(len(recs)) / last
		}
	}
}
