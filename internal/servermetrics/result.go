package servermetrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result is what a Collector read over the timed window; it marshals to
// the result's llmbench.server_metrics object.
type Result struct {
	// Endpoints has one entry per URL, in Config.URLs order.
	Endpoints []Endpoint `json:"endpoints"`
	// Families holds every kept family by canonical name (see Canonical).
	Families map[string]Family `json:"families"`
	// Summary is the few figures a reader looks at first.
	Summary Summary `json:"summary"`

	// Warnings are the scrape failures (one per endpoint at most), for
	// the result's warnings; not part of this object's JSON.
	Warnings []string `json:"-"`
	// Start and End are the window's edges (Mark and Stop); gauge
	// samples' times are seconds after Start.
	Start, End time.Time `json:"-"`
}

// Endpoint is one URL's scrape counts.
type Endpoint struct {
	// URL is the address read, without userinfo or query; after a JSON
	// answer on /metrics it is /prometheus/metrics if that worked.
	URL string `json:"url"`
	// Scrapes counts parsed answers, ScrapeErrors failed ones (timeouts,
	// refused connections, non-200, JSON, oversized or unparsable bodies).
	Scrapes      int `json:"scrapes"`
	ScrapeErrors int `json:"scrape_errors"`
}

// Family is one metric family's series summarised over the window.
type Family struct {
	// Type is counter, gauge, histogram or untyped (summarised as a gauge).
	Type string `json:"type"`
	// ExposedAs is the name the server used when it was an older vLLM
	// spelling of this family (e.g. vllm:gpu_cache_usage_perc).
	ExposedAs string `json:"exposed_as,omitempty"`
	// Series are the family's label sets, by endpoint then labels.
	Series []Series `json:"series"`
}

// Series is one label set's summary; which fields are set depends on the
// family's type.
type Series struct {
	// Labels are the series' labels as the server sent them.
	Labels map[string]string `json:"labels"`
	// Endpoint is the URL it came from, when more than one was read.
	Endpoint string `json:"endpoint,omitempty"`

	// Counters: growth over the window (reset-adjusted, interpolated at
	// the edges) and that growth per second of the window.
	Increase *float64 `json:"increase,omitempty"`
	Rate     *float64 `json:"rate,omitempty"`

	// Gauges: statistics of the samples taken in the window, and the
	// samples as [seconds after the window's start, value]. Histograms
	// set Mean too (Sum/Count).
	Mean    *float64     `json:"mean,omitempty"`
	Min     *float64     `json:"min,omitempty"`
	Max     *float64     `json:"max,omitempty"`
	P50     *float64     `json:"p50,omitempty"`
	P99     *float64     `json:"p99,omitempty"`
	Samples [][2]float64 `json:"samples,omitempty"`

	// Histograms: each bucket's increase (cumulative, as exposed), the
	// increase of _count and _sum, and histogram_quantile estimates. The
	// estimates are only as fine as the server's buckets (vLLM's ITL
	// buckets jump from 25 to 50 ms), hence the _estimate names.
	Buckets     []Bucket `json:"buckets,omitempty"`
	Count       *float64 `json:"count,omitempty"`
	Sum         *float64 `json:"sum,omitempty"`
	P50Estimate *float64 `json:"p50_estimate,omitempty"`
	P90Estimate *float64 `json:"p90_estimate,omitempty"`
	P99Estimate *float64 `json:"p99_estimate,omitempty"`
}

// Bucket is one histogram bucket's increase over the window.
type Bucket struct {
	// Le is the upper bound as Prometheus writes it ("0.025", "+Inf").
	Le string `json:"le"`
	// Increase is the growth of the cumulative count of observations ≤ Le.
	Increase float64 `json:"increase"`
}

// Summary is the figures the report shows in "Server Specifics" and the
// sweep's cause reads. A pointer field is absent (nil) when no endpoint
// exposed a family that carries it. Gauges are added up across replicas
// scrape by scrape (the fleet's running requests), except KV usage, which
// is the largest any replica reached.
type Summary struct {
	// Server names the servers seen: vllm, sglang, tgi (comma-separated
	// when mixed); empty when none was recognised.
	Server string `json:"server,omitempty"`
	// Scrapes and ScrapeErrors add up the endpoints'.
	Scrapes      int `json:"scrapes"`
	ScrapeErrors int `json:"scrape_errors"`
	// RunningMean/Max: requests in the running batch; WaitingMean/Max:
	// requests queued for it (vLLM num_requests_running/waiting, SGLang
	// num_running_reqs/num_queue_reqs, TGI batch_current_size/queue_size).
	RunningMean *float64 `json:"running_mean,omitempty"`
	RunningMax  *float64 `json:"running_max,omitempty"`
	WaitingMean *float64 `json:"waiting_mean,omitempty"`
	WaitingMax  *float64 `json:"waiting_max,omitempty"`
	// KVCacheUsageMax is the highest KV-cache usage sampled, 0..1 (vLLM
	// kv_cache_usage_perc or gpu_cache_usage_perc, SGLang token_usage).
	KVCacheUsageMax *float64 `json:"kv_cache_usage_max,omitempty"`
	// Preemptions counts requests evicted from the batch to free KV cache
	// (vLLM num_preemptions, SGLang num_retracted_requests).
	Preemptions *float64 `json:"preemptions,omitempty"`
	// PrefixCacheHitRate is prompt tokens served from the prefix cache
	// over prompt tokens looked up in it, 0..1.
	PrefixCacheHitRate *float64 `json:"prefix_cache_hit_rate,omitempty"`
	// GenerationTokens and PromptTokens are the server's token counters'
	// growth over the window (TGI: its per-request histograms' _sum).
	GenerationTokens *float64 `json:"generation_tokens,omitempty"`
	PromptTokens     *float64 `json:"prompt_tokens,omitempty"`
	// QueueTimeMeanS and ServerTTFTMeanS are the means (sum/count) of the
	// server's queue-time and TTFT histograms over the window, seconds.
	QueueTimeMeanS  *float64 `json:"queue_time_mean_s,omitempty"`
	ServerTTFTMeanS *float64 `json:"server_ttft_mean_s,omitempty"`
	// GenerationTokensVsClient is GenerationTokens over the client's
	// output tokens (set by CrossCheck): 1 when both counted the same.
	GenerationTokensVsClient *float64 `json:"generation_tokens_vs_client,omitempty"`
	// GPUUtilizationMean is DCGM_FI_DEV_GPU_UTIL's mean over GPUs and
	// samples, as a fraction 0..1 (DCGM reports percent).
	GPUUtilizationMean *float64 `json:"gpu_utilization_mean,omitempty"`
	// PowerMeanW is the GPUs' total power draw, averaged over samples.
	PowerMeanW *float64 `json:"power_mean_w,omitempty"`
	// EnergyJ is the GPUs' energy counters' growth over the window, joules.
	EnergyJ *float64 `json:"energy_j,omitempty"`
	// EnergyPerOutputTokenJ is EnergyJ per output token: the client's
	// tokens once CrossCheck ran, the server's GenerationTokens before.
	EnergyPerOutputTokenJ *float64 `json:"energy_per_output_token_j,omitempty"`
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	v = clean(v)
	return &v
}

// clean rounds away binary noise from interpolation (1e-9 relative), so
// a counter read exactly at both edges gives a whole number.
func clean(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// formatLe writes a bucket bound as Prometheus does.
func formatLe(le float64) string {
	if math.IsInf(le, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(le, 'g', -1, 64)
}

// summarize builds the Result from what was scraped (c.mu held).
func (c *Collector) summarize() Result {
	start, end := c.mark, c.end
	if start.IsZero() {
		start = c.firstScrape()
	}
	if start.After(end) {
		start = end
	}
	r := Result{Families: map[string]Family{}, Warnings: slices.Clone(c.warnings), Start: start, End: end}
	multi := len(c.eps) > 1
	secs := end.Sub(start).Seconds()
	for _, ep := range c.eps {
		r.Endpoints = append(r.Endpoints, Endpoint{URL: ep.shown, Scrapes: ep.scrapes, ScrapeErrors: ep.errs})
		r.Summary.Scrapes += ep.scrapes
		r.Summary.ScrapeErrors += ep.errs
		keys := slices.Clone(ep.order)
		sort.Strings(keys)
		for _, k := range keys {
			s := ep.series[k]
			out, ok := s.summarize(start, end, secs)
			if !ok {
				continue
			}
			if out.Labels == nil {
				out.Labels = map[string]string{}
			}
			if multi {
				out.Endpoint = ep.shown
			}
			f := r.Families[s.family]
			if f.Type == "" {
				f.Type = s.typ
			}
			f.Series = append(f.Series, out)
			r.Families[s.family] = f
		}
	}
	r.Summary = c.summary(r.Summary, start, end)
	for canon, wire := range c.exposedAs() {
		if f, ok := r.Families[canon]; ok {
			f.ExposedAs = wire
			r.Families[canon] = f
		}
	}
	return r
}

func (c *Collector) firstScrape() time.Time {
	var first time.Time
	for _, ep := range c.eps {
		for _, s := range ep.series {
			var t time.Time
			if len(s.gauge) > 0 {
				t = s.gauge[0].t
			} else if len(s.cum.pts) > 0 {
				t = s.cum.pts[0].t
			}
			if !t.IsZero() && (first.IsZero() || t.Before(first)) {
				first = t
			}
		}
	}
	return first
}

// exposedAs maps canonical names to the old names servers used.
func (c *Collector) exposedAs() map[string]string {
	m := map[string]string{}
	for _, ep := range c.eps {
		for canon, wire := range ep.exposedAs {
			m[canon] = wire
		}
	}
	return m
}

// summarize is one series over [start, end]; false when it has no data
// there.
func (s *series) summarize(start, end time.Time, secs float64) (Series, bool) {
	out := Series{Labels: s.labels}
	switch s.typ {
	case TypeCounter:
		inc := s.cum.increase(start, end)
		if inc == nil {
			return out, false
		}
		out.Increase = ptr(inc[0])
		if secs > 0 {
			out.Rate = ptr(inc[0] / secs)
		}
	case TypeHistogram:
		inc := s.cum.increase(start, end)
		if inc == nil {
			return out, false
		}
		n := len(s.les)
		for i, le := range s.les {
			out.Buckets = append(out.Buckets, Bucket{Le: formatLe(le), Increase: clean(inc[i])})
		}
		count, sum := inc[n], inc[n+1]
		out.Count, out.Sum = ptr(count), ptr(sum)
		if count > 0 {
			out.Mean = ptr(sum / count)
		}
		out.P50Estimate = ptr(histQuantile(s.les, inc[:n], 0.5))
		out.P90Estimate = ptr(histQuantile(s.les, inc[:n], 0.9))
		out.P99Estimate = ptr(histQuantile(s.les, inc[:n], 0.99))
	default:
		pts := inWindow(s.gauge, start, end)
		if len(pts) == 0 {
			return out, false
		}
		vals := make([]float64, len(pts))
		for i, p := range pts {
			vals[i] = p.vals[0]
			out.Samples = append(out.Samples, [2]float64{math.Round(p.t.Sub(start).Seconds()*1000) / 1000, clean(p.vals[0])})
		}
		st := statsOf(vals)
		out.Mean, out.Min, out.Max, out.P50, out.P99 = ptr(st.mean), ptr(st.min), ptr(st.max), ptr(st.p50), ptr(st.p99)
	}
	return out, true
}

// pick returns the first family of ro that some endpoint exposes, and
// every series of it across endpoints.
func (c *Collector) pick(ro role) (string, []*series) {
	for _, name := range ro {
		var got []*series
		for _, ep := range c.eps {
			for _, k := range ep.order {
				if s := ep.series[k]; s.family == name {
					got = append(got, s)
				}
			}
		}
		if len(got) > 0 {
			return name, got
		}
	}
	return "", nil
}

// fleet adds a gauge's series up scrape by scrape (all endpoints of one
// scrape share its time) over the window and returns the totals.
func fleet(ss []*series, start, end time.Time) []float64 {
	sums := map[time.Time]float64{}
	for _, s := range ss {
		for _, p := range inWindow(s.gauge, start, end) {
			sums[p.t] += p.vals[0]
		}
	}
	ts := make([]time.Time, 0, len(sums))
	for t := range sums {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, time.Time.Compare)
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = sums[t]
	}
	return out
}

// increaseOf adds up a counter role's increases over the window
// (index: which family of the role matched, -1 if none).
func (c *Collector) increaseOf(ro role, start, end time.Time) (float64, int) {
	name, ss := c.pick(ro)
	if name == "" {
		return 0, -1
	}
	total := 0.0
	for _, s := range ss {
		if inc := s.cum.increase(start, end); inc != nil && s.typ == TypeCounter {
			total += inc[0]
		}
	}
	return total, slices.Index(ro, name)
}

// histOf adds up a histogram role's _count and _sum increases.
func (c *Collector) histOf(ro role, start, end time.Time) (count, sum float64, ok bool) {
	name, ss := c.pick(ro)
	if name == "" {
		return 0, 0, false
	}
	for _, s := range ss {
		inc := s.cum.increase(start, end)
		if inc == nil || s.typ != TypeHistogram {
			continue
		}
		n := len(s.les)
		count += inc[n]
		sum += inc[n+1]
		ok = true
	}
	return count, sum, ok
}

// summary fills the roles' figures into sum.
func (c *Collector) summary(sum Summary, start, end time.Time) Summary {
	servers := map[string]bool{}
	for _, ep := range c.eps {
		for _, s := range ep.series {
			if sv := serverOf(s.family); sv != "" {
				servers[sv] = true
			}
		}
	}
	names := make([]string, 0, len(servers))
	for sv := range servers {
		names = append(names, sv)
	}
	sort.Strings(names)
	sum.Server = strings.Join(names, ",")

	gauge := func(ro role) (mean, mx *float64) {
		if _, ss := c.pick(ro); ss != nil {
			if v := fleet(ss, start, end); len(v) > 0 {
				st := statsOf(v)
				return ptr(st.mean), ptr(st.max)
			}
		}
		return nil, nil
	}
	sum.RunningMean, sum.RunningMax = gauge(roleRunning)
	sum.WaitingMean, sum.WaitingMax = gauge(roleWaiting)
	if _, ss := c.pick(roleKVUsage); ss != nil {
		var vals []float64
		for _, s := range ss {
			for _, p := range inWindow(s.gauge, start, end) {
				vals = append(vals, p.vals[0])
			}
		}
		if len(vals) > 0 {
			sum.KVCacheUsageMax = ptr(slices.Max(vals))
		}
	}
	if v, i := c.increaseOf(rolePreemptions, start, end); i >= 0 {
		sum.Preemptions = ptr(v)
	}
	if hits, i := c.increaseOf(rolePrefixHits, start, end); i >= 0 {
		if q, _ := c.increaseOf(role{rolePrefixQueries[i]}, start, end); q > 0 {
			sum.PrefixCacheHitRate = ptr(hits / q)
		}
	}
	if v, i := c.increaseOf(roleGenTokens, start, end); i >= 0 {
		sum.GenerationTokens = ptr(v)
	} else if _, s, ok := c.histOf(roleGenTokensHist, start, end); ok {
		sum.GenerationTokens = ptr(s)
	}
	if v, i := c.increaseOf(rolePromptTok, start, end); i >= 0 {
		sum.PromptTokens = ptr(v)
	} else if _, s, ok := c.histOf(rolePromptTokHist, start, end); ok {
		sum.PromptTokens = ptr(s)
	}
	if n, s, ok := c.histOf(roleQueueTime, start, end); ok && n > 0 {
		sum.QueueTimeMeanS = ptr(s / n)
	}
	if n, s, ok := c.histOf(roleTTFT, start, end); ok && n > 0 {
		sum.ServerTTFTMeanS = ptr(s / n)
	}
	if _, ss := c.pick(roleGPUUtil); ss != nil {
		var vals []float64
		for _, s := range ss {
			for _, p := range inWindow(s.gauge, start, end) {
				vals = append(vals, p.vals[0]/100)
			}
		}
		if len(vals) > 0 {
			sum.GPUUtilizationMean = ptr(statsOf(vals).mean)
		}
	}
	sum.PowerMeanW, _ = gauge(rolePower)
	if v, i := c.increaseOf(roleEnergy, start, end); i >= 0 {
		sum.EnergyJ = ptr(v / 1000) // DCGM counts millijoules
		if sum.GenerationTokens != nil && *sum.GenerationTokens > 0 {
			sum.EnergyPerOutputTokenJ = ptr(v / 1000 / *sum.GenerationTokens)
		}
	}
	return sum
}

// Client is what the client measured over the same window, for CrossCheck.
type Client struct {
	// OutputTokens is the client's total output tokens (total_output_tokens).
	OutputTokens int
	// MeanInFlight is the client's mean number of requests in flight.
	MeanInFlight float64
}

// CrossCheck compares the server's view with the client's: it sets
// Summary.GenerationTokensVsClient (and EnergyPerOutputTokenJ per client
// token) and returns one sentence per disagreement, for the self-check
// line. Server generation tokens more than 10 % away from the client's
// output tokens mean another client shares the server or one side counts
// tokens differently; the client holding more requests in flight than
// the server has running and waiting (by more than 10 % and one request)
// means requests wait somewhere in between, in a proxy or load balancer.
func (r *Result) CrossCheck(c Client) []string {
	var notes []string
	s := &r.Summary
	if s.GenerationTokens != nil && c.OutputTokens > 0 {
		ratio := *s.GenerationTokens / float64(c.OutputTokens)
		s.GenerationTokensVsClient = ptr(ratio)
		if math.Abs(ratio-1) > 0.10 {
			notes = append(notes, fmt.Sprintf("the server generated %.0f tokens in the window, the client received %d (%.2fx): another client shares the server, or the two count tokens differently",
				*s.GenerationTokens, c.OutputTokens, ratio))
		}
	}
	if s.EnergyJ != nil && c.OutputTokens > 0 {
		s.EnergyPerOutputTokenJ = ptr(*s.EnergyJ / float64(c.OutputTokens))
	}
	if s.RunningMean != nil && c.MeanInFlight > 0 {
		server := *s.RunningMean
		if s.WaitingMean != nil {
			server += *s.WaitingMean
		}
		if gap := c.MeanInFlight - server; gap > 1 && gap > 0.10*c.MeanInFlight {
			notes = append(notes, fmt.Sprintf("the client had %.1f requests in flight on average, the server %.1f running and waiting: %.1f were held in between (a proxy or load balancer)",
				c.MeanInFlight, server, gap))
		}
	}
	return notes
}
