// Package promexport exposes a benchmark's live figures as Prometheus
// metrics: per-request histograms (TTFT, TPOT, ITL, E2EL, client queue
// time), counters (requests by outcome and error class, tokens, goodput)
// and gauges (requests in flight, target rate, concurrency, dispatch lag,
// the client's self-check), served on /metrics in the OpenMetrics format
// or pushed to a Pushgateway at the end of a short run.
//
// Every Exporter has its own registry: nothing goes to client_golang's
// global one, so two runs in one process (tests, a sweep) never collide.
// Metric names follow Prometheus conventions: namespace llmbench_, base
// units (seconds), _total for counters. Every series carries the run's
// run_id, backend and model as constant labels and a phase label
// (warmup, main, or a sweep step id).
//
// The exporter is fed from records (internal/record), never from the
// stream goroutines: Observe is meant for a step's sink (bench.Sink's
// Record), which runs on the step's single collector goroutine, so a
// histogram update or a token count never delays a stream's time stamps.
// The package does not import bench: the sink that feeds it is its
// caller's (internal/promexport/promsink). The package computes
// no summary statistics (percentiles are Prometheus' job, from the
// buckets; the run's own figures come from internal/metrics) and does not
// decide when to run or stop: its caller does.
package promexport

import (
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// Namespace prefixes every metric name.
const Namespace = "llmbench"

// Phase label values used by run; a sweep uses its step id instead.
const (
	PhaseWarmup = "warmup"
	PhaseMain   = "main"
)

// Outcome label values of llmbench_requests_total.
const (
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
)

// Config describes the run an Exporter reports on. The zero value works:
// empty labels, fallback-1 token counts, every successful request good.
type Config struct {
	// RunID, Backend and Model become the constant labels run_id, backend
	// and model of every series ("" is a valid, empty value).
	RunID, Backend, Model string
	// CountTokens counts the output tokens of a successful record's
	// generated text when the server sent no usage count and the record
	// carries no saved count (record.TokenizerCount) — the rule of
	// internal/metrics, so the token counters match the run's totals. It
	// runs on Observe's goroutine. nil: such a record counts 1 output
	// token (vLLM's fallback), as with --skip-tokenizer-init.
	CountTokens func(text string) int
	// Goodput holds SLOs in milliseconds keyed "ttft", "tpot", "e2el",
	// as vLLM's --goodput takes them; a successful request meeting every
	// one (equality counts as met) is good. Empty: every successful
	// request is good, so the good counters equal the success counters.
	Goodput map[string]float64
	// ProcessMetrics adds the Go runtime and process collectors
	// (go_*, process_*) to the registry: the client's own CPU and memory.
	ProcessMetrics bool
}

// Exporter holds one run's metrics in its own registry. All methods are
// safe for concurrent use; Observe is the only one with real work and
// belongs on a single goroutine off the request path (see the package
// doc).
type Exporter struct {
	cfg Config
	// counter is cfg.CountTokens as metrics.OutputLen takes it; nil when
	// CountTokens is nil (a nil func in an interface would not be nil).
	counter metrics.TokenCounter
	reg     *prometheus.Registry

	ttft, tpot, itl, e2el, queue *prometheus.HistogramVec

	requests, errors       *prometheus.CounterVec
	inTokens, outTokens    *prometheus.CounterVec
	goodReqs, goodOutToken *prometheus.CounterVec

	inFlight, targetRate, concurrency, lag *prometheus.GaugeVec
	check, verdict                         *prometheus.GaugeVec
	valid                                  prometheus.Gauge

	names []string // exposed metric names, see MetricNames

	mu     sync.Mutex
	phases map[string]*phaseSet
	checks map[string]bool // check names set so far
}

// New returns an Exporter for the run cfg describes, with every metric
// registered in a fresh registry.
func New(cfg Config) *Exporter {
	e := &Exporter{cfg: cfg, reg: prometheus.NewRegistry(),
		phases: map[string]*phaseSet{}, checks: map[string]bool{}}
	if cfg.CountTokens != nil {
		e.counter = countFunc(cfg.CountTokens)
	}
	f := factory{reg: e.reg, names: &e.names, labels: prometheus.Labels{
		"run_id": cfg.RunID, "backend": cfg.Backend, "model": cfg.Model}}
	e.newHistograms(f)
	e.newCounters(f)
	e.newGauges(f)
	if cfg.ProcessMetrics {
		e.reg.MustRegister(collectors.NewGoCollector(),
			collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return e
}

// Registry returns the exporter's registry (to serve it elsewhere, or to
// register more collectors).
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// MetricNames returns the name of every llmbench_ sample the exporter
// exposes (histograms as their _bucket, _sum and _count series), sorted:
// what dashboards and alert rules may query. The go_ and process_ metrics
// of Config.ProcessMetrics are not listed.
func (e *Exporter) MetricNames() []string {
	return slices.Sorted(slices.Values(e.names))
}

// factory registers metrics with the run's constant labels.
type factory struct {
	reg    *prometheus.Registry
	names  *[]string
	labels prometheus.Labels
}

func (f factory) register(c prometheus.Collector, name string, suffixes ...string) {
	f.reg.MustRegister(c)
	full := Namespace + "_" + name
	if len(suffixes) == 0 {
		*f.names = append(*f.names, full)
	}
	for _, s := range suffixes {
		*f.names = append(*f.names, full+s)
	}
}

// Native histogram settings: ~10 % resolution, at most 160 buckets per
// series (then the resolution halves), reset at most once an hour.
const (
	nativeFactor     = 1.1
	nativeMaxBuckets = 160
)

func (f factory) histogram(name, help string, buckets []float64) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: name, Help: help, ConstLabels: f.labels,
		Buckets:                         buckets,
		NativeHistogramBucketFactor:     nativeFactor,
		NativeHistogramMaxBucketNumber:  nativeMaxBuckets,
		NativeHistogramMinResetDuration: 3600e9,
	}, []string{"phase"})
	f.register(h, name, "_bucket", "_sum", "_count")
	return h
}

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: name, Help: help, ConstLabels: f.labels,
	}, append([]string{"phase"}, labels...))
	f.register(c, name)
	return c
}

func (f factory) gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: Namespace, Name: name, Help: help, ConstLabels: f.labels,
	}, labels)
	f.register(g, name)
	return g
}

func (e *Exporter) newHistograms(f factory) {
	e.ttft = f.histogram("ttft_seconds",
		"Time to first token of successful requests: from just before the request was sent to the first token chunk.", TTFTBuckets)
	e.tpot = f.histogram("tpot_seconds",
		"Time per output token of successful requests with more than one output token: (E2EL - TTFT) / (output tokens - 1).", TokenBuckets)
	e.itl = f.histogram("itl_seconds",
		"Inter-token latency: each gap between consecutive token chunks of successful requests.", TokenBuckets)
	e.e2el = f.histogram("e2el_seconds",
		"End-to-end latency of successful requests: from just before the request was sent to its last token chunk.", E2ELBuckets)
	e.queue = f.histogram("client_queue_seconds",
		"Time each request waited in the client for a concurrency slot before it was sent.", QueueBuckets)
}

func (e *Exporter) newCounters(f factory) {
	e.requests = f.counter("requests_total",
		"Finished requests by outcome (success or failure).", "outcome")
	e.errors = f.counter("request_errors_total",
		"Failed requests by error class (http_4xx, http_429, http_5xx, timeout, connection, stream_truncated, ...).", "error_class")
	e.inTokens = f.counter("input_tokens_total",
		"Prompt tokens of successful requests (the server's usage count when it sent one).")
	e.outTokens = f.counter("output_tokens_total",
		"Output tokens of successful requests (server usage, else the client tokenizer's count, else 1).")
	e.goodReqs = f.counter("good_requests_total",
		"Successful requests that met every goodput SLO (all successful requests when no SLO is set).")
	e.goodOutToken = f.counter("good_output_tokens_total",
		"Output tokens of the requests counted in llmbench_good_requests_total (token goodput).")
}

func (e *Exporter) newGauges(f factory) {
	e.inFlight = f.gauge("requests_in_flight",
		"Requests sent and not yet finished.", "phase")
	e.targetRate = f.gauge("target_request_rate",
		"Request rate the schedule aims at, in requests per second (+Inf: all at once).", "phase")
	e.concurrency = f.gauge("max_concurrency",
		"Concurrency cap, or closed-loop users (0: no cap).", "phase")
	e.lag = f.gauge("dispatch_lag_seconds",
		"How late the client sent its latest request against the schedule, beyond any wait for a concurrency slot.", "phase")
	e.check = f.gauge("client_check",
		"The client self-check's measured values, one series per check (units as the check name says).", "check")
	e.verdict = f.gauge("client_verdict",
		"The client self-check's verdict as a state set: 1 for the current verdict (valid, degraded or invalid), 0 for the others.", "verdict")
	e.valid = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "client_valid",
		Help:        "1 while the client self-check says the measurement is valid, 0 when it is degraded or invalid.",
		ConstLabels: f.labels})
	f.register(e.valid, "client_valid")
	// Until a self-check reports, the client has no reason to doubt itself.
	e.valid.Set(1)
}

// phaseSet caches one phase's series so Observe does no label hashing.
type phaseSet struct {
	ttft, tpot, itl, e2el, queue prometheus.Observer

	success, failure                       prometheus.Counter
	inTokens, outTokens, goodReqs, goodOut prometheus.Counter
	lag                                    prometheus.Gauge
	errors                                 map[string]prometheus.Counter
}

// phase returns phase's series, creating them on first use so that every
// phase exposes all its series (at zero) from its first record on.
func (e *Exporter) phase(name string) *phaseSet {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.phases[name]; ok {
		return p
	}
	p := &phaseSet{
		ttft: e.ttft.WithLabelValues(name), tpot: e.tpot.WithLabelValues(name),
		itl: e.itl.WithLabelValues(name), e2el: e.e2el.WithLabelValues(name),
		queue:     e.queue.WithLabelValues(name),
		success:   e.requests.WithLabelValues(name, OutcomeSuccess),
		failure:   e.requests.WithLabelValues(name, OutcomeFailure),
		inTokens:  e.inTokens.WithLabelValues(name),
		outTokens: e.outTokens.WithLabelValues(name),
		goodReqs:  e.goodReqs.WithLabelValues(name),
		goodOut:   e.goodOutToken.WithLabelValues(name),
		lag:       e.lag.WithLabelValues(name),
		errors:    map[string]prometheus.Counter{},
	}
	// Every known error class from zero (Prometheus' advice for label
	// values known in advance): a series that appears only with the first
	// error leaves a dashboard's error panel on "No data" and makes
	// rate() miss that first error. Backend-specific classes (SageMaker's
	// exceptions) still appear when first seen.
	for _, c := range record.Classes {
		p.errors[c] = e.errors.WithLabelValues(name, c)
	}
	e.inFlight.WithLabelValues(name)
	e.phases[name] = p
	return p
}

// errorCounter returns p's counter for class (under e.mu: Observe may in
// principle be called from more than one goroutine).
func (e *Exporter) errorCounter(p *phaseSet, phase, class string) prometheus.Counter {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := p.errors[class]
	if !ok {
		c = e.errors.WithLabelValues(phase, class)
		p.errors[class] = c
	}
	return c
}

// OnDone returns a function for a step's sink (bench.Sink's Record) that
// observes every finished request under phase.
func (e *Exporter) OnDone(phase string) func(r *record.Record) {
	p := e.phase(phase)
	return func(r *record.Record) { e.observe(p, phase, r) }
}

// Observe adds one finished request to phase's metrics: its outcome, and
// for a success its TTFT, ITL gaps, E2EL, TPOT (more than one output
// token), tokens and goodput; the queue time and dispatch lag of every
// request. Call it off the request path — from a step's sink, which runs
// on one collector goroutine — never from a stream goroutine:
// it may count tokens, and each histogram update costs a few hundred
// nanoseconds per ITL gap.
func (e *Exporter) Observe(phase string, r *record.Record) {
	e.observe(e.phase(phase), phase, r)
}

func (e *Exporter) observe(p *phaseSet, phase string, r *record.Record) {
	p.queue.Observe(r.QueueTime)
	if r.IntendedTime != nil {
		p.lag.Set(max(0, r.StartTime-*r.IntendedTime-r.QueueTime))
	}
	if !r.Success {
		p.failure.Inc()
		class := r.ErrorClass
		if class == "" {
			class = "unclassified" // internal/metrics' name for it
		}
		e.errorCounter(p, phase, class).Inc()
		return
	}
	p.success.Inc()
	n, _, _ := metrics.OutputLen(r, false, e.counter)
	p.inTokens.Add(float64(r.PromptLen))
	p.outTokens.Add(float64(n))
	p.ttft.Observe(r.TTFT)
	p.e2el.Observe(r.Latency)
	tpot, ok := metrics.RequestTPOT(r.Latency, r.TTFT, n)
	if ok {
		p.tpot.Observe(tpot)
	}
	for _, v := range r.ITL {
		p.itl.Observe(v)
	}
	if metrics.SLOs(e.cfg.Goodput).Meets(r.TTFT, tpot, r.Latency) {
		p.goodReqs.Inc()
		p.goodOut.Add(float64(n))
	}
}

// countFunc adapts Config.CountTokens to metrics.TokenCounter.
type countFunc func(text string) int

// CountTokens returns f(text).
func (f countFunc) CountTokens(text string) int { return f(text) }
