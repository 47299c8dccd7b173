package sim

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The simulator's /metrics: its ground truth as Prometheus sees a server.
// Where vLLM has a metric for the same thing, the simulator uses vLLM's
// name and model_name label (vllm:num_requests_running, ...), so queries,
// dashboards and autoscaling rules written for a vLLM server work against
// the simulator unchanged; the rest carry the llmbench_sim_ prefix.
// Values are read when scraped (atomics the engine and handlers already
// keep): serving /metrics costs the request path nothing.

// metricsCollector reads a Server's counters and engine gauges at scrape
// time.
type metricsCollector struct {
	s     *Server
	descs []*prometheus.Desc
}

// The collector's metrics, in descs order.
const (
	mRunning = iota
	mWaiting
	mKVUsage
	mPromptTokens
	mGenTokens
	mInFlight
	mRequests
	mErrors
	mFaults
	mSteps
	mBatchCap
	mPreemptions
	mPrefixQueries
	mPrefixHits
)

func newMetricsCollector(s *Server) *metricsCollector {
	model := prometheus.Labels{"model_name": s.cfg.Model}
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, model) }
	return &metricsCollector{s: s, descs: []*prometheus.Desc{
		mRunning:       d("vllm:num_requests_running", "Number of requests in model execution batches."),
		mWaiting:       d("vllm:num_requests_waiting", "Number of requests waiting to be processed."),
		mKVUsage:       d("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."),
		mPromptTokens:  d("vllm:prompt_tokens_total", "Number of prefill tokens processed."),
		mGenTokens:     d("vllm:generation_tokens_total", "Number of generation tokens processed."),
		mInFlight:      d("llmbench_sim_http_requests_in_flight", "Generation requests received and not yet answered in full."),
		mRequests:      d("llmbench_sim_requests_total", "Finished generation requests (OpenAI, SageMaker, /invocations)."),
		mErrors:        d("llmbench_sim_request_errors_total", "Finished generation requests answered with a non-200 status."),
		mFaults:        d("llmbench_sim_faults_total", "Requests that got an injected fault."),
		mSteps:         d("llmbench_sim_engine_steps_total", "Continuous-batching engine steps completed (0 in fixed mode)."),
		mBatchCap:      d("llmbench_sim_max_num_seqs", "Batch slots of the batching engine (0 in fixed mode)."),
		mPreemptions:   d("vllm:num_preemptions_total", "Cumulative number of preemption from the engine."),
		mPrefixQueries: d("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens."),
		mPrefixHits:    d("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens."),
	}}
}

// Describe implements prometheus.Collector.
func (c *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	g := s.eng.engineGauges()
	kv, batchCap := 0.0, 0.0
	if s.cfg.Mode == ModeBatching {
		kv = float64(g.kvUsed.Load()) / float64(max(g.kvTotal.Load(), 1))
		batchCap = float64(s.cfg.Batching.MaxNumSeqs)
	}
	finished := s.nReq.Load()
	vals := []struct {
		t prometheus.ValueType
		v float64
	}{
		mRunning:       {prometheus.GaugeValue, float64(g.running.Load())},
		mWaiting:       {prometheus.GaugeValue, float64(g.waiting.Load())},
		mKVUsage:       {prometheus.GaugeValue, kv},
		mPromptTokens:  {prometheus.CounterValue, float64(s.nPromptTok.Load())},
		mGenTokens:     {prometheus.CounterValue, float64(s.nTok.Load())},
		mInFlight:      {prometheus.GaugeValue, float64(int64(s.arrivals.Load()) - finished)},
		mRequests:      {prometheus.CounterValue, float64(finished)},
		mErrors:        {prometheus.CounterValue, float64(s.nErr.Load())},
		mFaults:        {prometheus.CounterValue, float64(s.nFault.Load())},
		mSteps:         {prometheus.CounterValue, float64(g.steps.Load())},
		mBatchCap:      {prometheus.GaugeValue, batchCap},
		mPreemptions:   {prometheus.CounterValue, float64(g.preemptions.Load())},
		mPrefixQueries: {prometheus.CounterValue, float64(g.prefixQueries.Load())},
		mPrefixHits:    {prometheus.CounterValue, float64(g.prefixHits.Load())},
	}
	for i, v := range vals {
		ch <- prometheus.MustNewConstMetric(c.descs[i], v.t, v.v)
	}
}

// MetricsHandler serves the simulator's metrics (see above) in the
// Prometheus text or OpenMetrics format. The simulator serves it on its
// own /metrics, as vLLM does; `llmbench sim --metrics-addr` serves it on
// a second listener too.
func (s *Server) MetricsHandler() http.Handler {
	return s.metrics
}

func newMetricsHandler(s *Server) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newMetricsCollector(s))
	s.hist.register(reg)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.ContinueOnError})
}

// vLLM's default histogram buckets (seconds), from vllm/v1/metrics.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	requestBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50,
		60, 120, 240, 480, 960, 1920, 7680}
)

// requestHistograms are vLLM's per-request latency histograms, observed
// from each finished request's ground truth (off the engine loop, in the
// request's goroutine after its last write), and request_success_total.
type requestHistograms struct {
	ttft, itl, tpot, e2e, queue, prefill, decode, inference prometheus.Histogram
	success                                                 *prometheus.CounterVec
}

func newRequestHistograms(model string) *requestHistograms {
	l := prometheus.Labels{"model_name": model}
	h := func(name, help string, b []float64) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b, ConstLabels: l})
	}
	return &requestHistograms{
		ttft:      h("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttftBuckets),
		itl:       h("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets),
		tpot:      h("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", itlBuckets),
		e2e:       h("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", requestBuckets),
		queue:     h("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", requestBuckets),
		prefill:   h("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", requestBuckets),
		decode:    h("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", requestBuckets),
		inference: h("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", requestBuckets),
		success: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:request_success_total",
			Help: "Count of successfully processed requests.", ConstLabels: l}, []string{"finished_reason"}),
	}
}

func (h *requestHistograms) register(reg *prometheus.Registry) {
	reg.MustRegister(h.ttft, h.itl, h.tpot, h.e2e, h.queue, h.prefill, h.decode, h.inference, h.success)
	for _, r := range []string{"stop", "length", "abort"} {
		h.success.WithLabelValues(r) // present from the start, as in vLLM
	}
}

// observe records one request that reached the engine: arrival, first
// admission, and the due times of its tokens (n of target were produced;
// eos says the last one is EOS). As vLLM: queue = admission - arrival,
// prefill = first token - admission, decode = last - first token,
// inference = last token - admission, e2e = last token - arrival, one ITL
// observation per gap between tokens.
func (h *requestHistograms) observe(arrival time.Time, sq *seq, eos bool) {
	n := sq.progress()
	if n == 0 {
		h.success.WithLabelValues("abort").Inc()
		return
	}
	sched := sq.scheduledAt()
	first, last := sq.dueOf(0), sq.dueOf(n-1)
	h.ttft.Observe(first.Sub(arrival).Seconds())
	prev := first
	for i := 1; i < n; i++ {
		d := sq.dueOf(i)
		h.itl.Observe(d.Sub(prev).Seconds())
		prev = d
	}
	if n > 1 {
		h.tpot.Observe(last.Sub(first).Seconds() / float64(n-1))
	}
	h.e2e.Observe(last.Sub(arrival).Seconds())
	h.queue.Observe(sched.Sub(arrival).Seconds())
	h.prefill.Observe(first.Sub(sched).Seconds())
	h.decode.Observe(last.Sub(first).Seconds())
	h.inference.Observe(last.Sub(sched).Seconds())
	switch {
	case n < sq.target:
		h.success.WithLabelValues("abort").Inc()
	case eos:
		h.success.WithLabelValues("stop").Inc()
	default:
		h.success.WithLabelValues("length").Inc()
	}
}

// DCGM is the simulated GPU the --dcgm-addr listener describes, in the
// NVIDIA DCGM exporter's names. Power is modelled from the engine's busy
// fraction: IdleW + (MaxW-IdleW)*busy; energy integrates it exactly
// (IdleW*elapsed + (MaxW-IdleW)*busy time), so it is a true counter.
type DCGM struct {
	// Model is the GPU's name (modelName label).
	Model string
	// IdleW and MaxW are the power draw idle and fully busy, watts.
	IdleW, MaxW float64
	// FBTotalMiB is the GPU memory; FBUsedMiB what the server holds (vLLM
	// allocates its KV cache up front, so it does not move with load).
	FBTotalMiB, FBUsedMiB float64
}

// DefaultDCGM is an NVIDIA A10G running vLLM at 90 % memory utilisation.
var DefaultDCGM = DCGM{Model: "NVIDIA A10G", IdleW: 60, MaxW: 300, FBTotalMiB: 23028, FBUsedMiB: 20725}

// dcgmCollector serves DCGM-named figures from the engine's busy time.
type dcgmCollector struct {
	s     *Server
	g     DCGM
	descs [5]*prometheus.Desc

	mu       sync.Mutex
	lastT    time.Time
	lastBusy int64
	util     float64 // busy fraction over the last interval between scrapes
}

func newDCGMCollector(s *Server, g DCGM) *dcgmCollector {
	l := prometheus.Labels{"gpu": "0", "UUID": "GPU-00000000-0000-0000-0000-000000000000", "device": "nvidia0",
		"modelName": g.Model, "Hostname": "llmbench-sim"}
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, l) }
	return &dcgmCollector{s: s, g: g, lastT: s.started(), descs: [5]*prometheus.Desc{
		d("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
		d("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
		d("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."),
		d("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
		d("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
	}}
}

// Describe implements prometheus.Collector.
func (c *dcgmCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *dcgmCollector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now()
	busy := c.s.eng.engineGauges().busyNs.Load()
	c.mu.Lock()
	if dt := now.Sub(c.lastT); dt > 0 {
		c.util = min(1, max(0, float64(busy-c.lastBusy)/float64(dt)))
		c.lastT, c.lastBusy = now, busy
	}
	util := c.util
	c.mu.Unlock()
	elapsed := now.Sub(c.s.started()).Seconds()
	energyJ := c.g.IdleW*elapsed + (c.g.MaxW-c.g.IdleW)*time.Duration(busy).Seconds()
	vals := [5]struct {
		t prometheus.ValueType
		v float64
	}{
		{prometheus.GaugeValue, float64(int(util*100 + 0.5))}, // DCGM reports whole percent
		{prometheus.GaugeValue, c.g.FBUsedMiB},
		{prometheus.GaugeValue, c.g.FBTotalMiB - c.g.FBUsedMiB},
		{prometheus.GaugeValue, c.g.IdleW + (c.g.MaxW-c.g.IdleW)*util},
		{prometheus.CounterValue, float64(int64(energyJ * 1000))},
	}
	for i, v := range vals {
		ch <- prometheus.MustNewConstMetric(c.descs[i], v.t, v.v)
	}
}

// DCGMHandler serves DCGM-exporter-named GPU figures for this server's
// engine (what `llmbench sim --dcgm-addr` listens with): utilisation
// over the time since the previous scrape, constant memory, power and an
// energy counter from the engine's busy fraction (batching mode; the
// fixed engine reports an idle GPU).
func (s *Server) DCGMHandler(g DCGM) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newDCGMCollector(s, g))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
