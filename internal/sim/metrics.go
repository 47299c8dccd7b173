package sim

import (
	"net/http"

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
)

func newMetricsCollector(s *Server) *metricsCollector {
	model := prometheus.Labels{"model_name": s.cfg.Model}
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, model) }
	return &metricsCollector{s: s, descs: []*prometheus.Desc{
		mRunning:      d("vllm:num_requests_running", "Number of requests in model execution batches."),
		mWaiting:      d("vllm:num_requests_waiting", "Number of requests waiting to be processed."),
		mKVUsage:      d("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."),
		mPromptTokens: d("vllm:prompt_tokens_total", "Number of prefill tokens processed."),
		mGenTokens:    d("vllm:generation_tokens_total", "Number of generation tokens processed."),
		mInFlight:     d("llmbench_sim_http_requests_in_flight", "Generation requests received and not yet answered in full."),
		mRequests:     d("llmbench_sim_requests_total", "Finished generation requests (OpenAI, SageMaker, /invocations)."),
		mErrors:       d("llmbench_sim_request_errors_total", "Finished generation requests answered with a non-200 status."),
		mFaults:       d("llmbench_sim_faults_total", "Requests that got an injected fault."),
		mSteps:        d("llmbench_sim_engine_steps_total", "Continuous-batching engine steps completed (0 in fixed mode)."),
		mBatchCap:     d("llmbench_sim_max_num_seqs", "Batch slots of the batching engine (0 in fixed mode)."),
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
		kv = float64(g.kvUsed.Load()) / float64(max(s.cfg.Batching.KVCacheTokens, 1))
		batchCap = float64(s.cfg.Batching.MaxNumSeqs)
	}
	finished := s.nReq.Load()
	vals := []struct {
		t prometheus.ValueType
		v float64
	}{
		mRunning:      {prometheus.GaugeValue, float64(g.running.Load())},
		mWaiting:      {prometheus.GaugeValue, float64(g.waiting.Load())},
		mKVUsage:      {prometheus.GaugeValue, kv},
		mPromptTokens: {prometheus.CounterValue, float64(s.nPromptTok.Load())},
		mGenTokens:    {prometheus.CounterValue, float64(s.nTok.Load())},
		mInFlight:     {prometheus.GaugeValue, float64(int64(s.arrivals.Load()) - finished)},
		mRequests:     {prometheus.CounterValue, float64(finished)},
		mErrors:       {prometheus.CounterValue, float64(s.nErr.Load())},
		mFaults:       {prometheus.CounterValue, float64(s.nFault.Load())},
		mSteps:        {prometheus.CounterValue, float64(g.steps.Load())},
		mBatchCap:     {prometheus.GaugeValue, batchCap},
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
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.ContinueOnError})
}
