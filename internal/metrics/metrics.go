// Package metrics computes a benchmark's figures from its per-request
// records: a pure function of []record.Record plus Params, reproducing
// vllm bench serve's calculate_metrics rules exactly (output-length
// fallback, TPOT only for > 1 token, pooled ITL, population std, NumPy
// linear percentiles and pairwise means, goodput, 1-second peak buckets),
// plus llmbench's own figures kept apart (client queue time, latency from
// the intended send time, dispatch lag, stream specifics).
//
// It does no I/O and no logging: problems worth telling the user travel in
// Summary.Warnings. Formatting belongs to package report.
package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/stats"
)

// AllFailedWarning is vLLM's warning when no request succeeded.
const AllFailedWarning = "All requests failed. This is likely due to a misconfiguration on the benchmark arguments."

// maxBuckets bounds the 1-second buckets of the peak metrics (about 194
// days of run time); a wider span means broken start times.
const maxBuckets = 1 << 24

// maxFailedErrors is how many failure messages vLLM lists before the table.
const maxFailedErrors = 10

// Summary is everything the reports print or save, in vLLM's units:
// counts, seconds for Duration, requests or tokens per second for
// throughputs, milliseconds in Stats.
type Summary struct {
	// Completed and Failed count successful and unsuccessful requests.
	Completed, Failed int
	// Duration is the benchmark duration in seconds (from Params).
	Duration float64
	// TotalInput sums prompt_len over successful requests; TotalOutput
	// sums OutputLens (failed requests add 0).
	TotalInput, TotalOutput int
	// RequestThroughput = Completed / Duration.
	RequestThroughput float64
	// Good counts requests meeting every goodput SLO; RequestGoodput =
	// Good / Duration, nil when no SLO was given.
	Good           int
	RequestGoodput *float64
	// OutputThroughput = TotalOutput / Duration; TotalTokenThroughput =
	// (TotalInput + TotalOutput) / Duration.
	OutputThroughput, TotalTokenThroughput float64
	// MaxOutputTokensPerS is the busiest 1-second bucket's token-chunk
	// count; MaxConcurrentRequests the most requests touching one bucket.
	MaxOutputTokensPerS   float64
	MaxConcurrentRequests int
	// RTFx is vLLM's inverse real-time factor; always 0 for text.
	RTFx float64

	// Percentiles are the reported percentiles, in the order given.
	Percentiles []float64
	// Metrics are the selected percentile metrics that apply, in vLLM's
	// print and save order (ttft, tpot, itl only with a tokenizer).
	Metrics []Stats
	// NoTokenizer repeats Params.NoTokenizer for the reports.
	NoTokenizer bool
	// CI holds the per-run confidence intervals of Metrics, one entry
	// per metric in the same order (llmbench's own; docs/confidence.md).
	CI CI

	// OutputLens is each record's output length (vLLM's output_lens,
	// 0 for failed requests), in record order.
	OutputLens []int
	// OutputSources is where each record's output length came from
	// (record.Source*; "" for failed requests), in record order.
	OutputSources []string
	// FailedErrors are the error texts of the first 10 failed requests,
	// as vLLM lists them before the table.
	FailedErrors []string

	// Extra holds llmbench's own figures, kept apart from vLLM's.
	Extra Extra
	// PerUser is llmbench's per-user view (per-user TPS, system TPS,
	// token goodput), kept apart from vLLM's figures; always computed.
	PerUser PerUser
	// PerTurn is TTFT by turn index of a multi-turn run; nil otherwise.
	PerTurn []TurnStats
	// Stream counts how successful streams ended and why requests failed.
	Stream StreamSpecifics
	// Warnings are things the user should know, one sentence each.
	Warnings []string
}

// Extra are llmbench's figures that vLLM does not compute. Each is nil
// when the records carry no data for it.
type Extra struct {
	// ClientQueue is the time successful requests waited client-side for
	// a concurrency slot (record.QueueTime); nil without
	// --max-concurrency and without queue times.
	ClientQueue *Stats
	// TTFTFromIntended and E2ELFromIntended measure TTFT and E2EL from
	// the scheduled (intended) send time instead of the actual one, so
	// they include client queueing and dispatch lag: what a user arriving
	// on schedule experienced. Successful requests with an intended time.
	TTFTFromIntended, E2ELFromIntended *Stats
	// DispatchLag is sent - intended - queue time over all records with
	// an intended time: how late the client itself sent requests, beyond
	// any wait for a concurrency slot.
	DispatchLag *Stats
}

// StreamSpecifics describe how the successful streams ended, where their
// token counts came from, and how the failed requests failed.
type StreamSpecifics struct {
	// Truncated counts finish_reason "length" (hit max_tokens).
	Truncated int
	// StoppedEOS counts finish reasons stop, eos_token and stop_sequence.
	StoppedEOS int
	// FinishUnknown counts every other finish reason, including none.
	FinishUnknown int
	// WithoutUsage counts streams that carried no usage frame.
	WithoutUsage int
	// Sources counts output-length sources, in the order server-usage,
	// tokenizer, fallback-1 (only those that occur).
	Sources []Count
	// Errors counts failed requests by record.ErrorClass ("unclassified"
	// when empty), most frequent first, ties by name.
	Errors []Count
}

// Count is a named count.
type Count struct {
	Name string
	N    int
}

// Summarize computes the Summary of recs (in dispatch order) under p. It
// validates p and every record and returns an error for unusable input;
// it never modifies recs.
func Summarize(recs []record.Record, p Params) (*Summary, error) {
	p, err := checkInputs(recs, p)
	if err != nil {
		return nil, err
	}
	s := &Summary{
		Duration:      p.Duration,
		Percentiles:   slices.Clone(p.Percentiles),
		NoTokenizer:   p.NoTokenizer,
		OutputLens:    make([]int, len(recs)),
		OutputSources: make([]string, len(recs)),
	}
	l, err := collect(s, recs, &p)
	if err != nil {
		return nil, err
	}
	d := p.Duration
	s.RequestThroughput = float64(s.Completed) / d
	s.OutputThroughput = float64(s.TotalOutput) / d
	// Summed as floats: each total fits an int, their sum may not.
	s.TotalTokenThroughput = (float64(s.TotalInput) + float64(s.TotalOutput)) / d

	if len(p.Goodput) > 0 {
		s.Good = countGood(p.Goodput, l.ttfts, l.allTPOTs, l.e2els)
		g := float64(s.Good) / d
		s.RequestGoodput = &g
	}
	s.MaxOutputTokensPerS, s.MaxConcurrentRequests, err = peaks(recs)
	if err != nil {
		return nil, err
	}
	percentileMetrics(s, recs, &p, l)

	var lagP99 float64
	s.Extra, lagP99 = extras(recs, &p)
	if s.Extra.DispatchLag != nil {
		limit := p.LagWarning
		if limit == 0 {
			limit = DefaultLagWarning
		}
		if limit > 0 && lagP99 > limit*1000 {
			s.Warnings = append(s.Warnings, fmt.Sprintf(
				"dispatch lag p99 is %.2f ms (over %.2f ms): the client sent requests later than scheduled, so the arrival process was not the one requested", lagP99, limit*1000))
		}
	}
	s.PerUser = perUser(recs, s.OutputLens, &p)
	s.PerUser.SystemTPS = s.OutputThroughput
	s.PerTurn = perTurn(recs, s.Percentiles)
	s.Stream = streamSpecifics(recs, s.OutputSources)
	return s, nil
}

// checkInputs fills p's defaults (vLLM's: p99 of TTFT, TPOT and ITL) and
// validates p and every record.
func checkInputs(recs []record.Record, p Params) (Params, error) {
	if p.Percentiles == nil {
		p.Percentiles = []float64{99}
	}
	if p.PercentileMetrics == nil {
		p.PercentileMetrics = []string{TTFT, TPOT, ITL}
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	for i := range recs {
		if err := recs[i].Validate(); err != nil {
			return p, fmt.Errorf("record %d (index %d): %w", i, recs[i].Index, err)
		}
	}
	return p, nil
}

// lists are the per-request values of successful requests, in dispatch
// order, that the percentile metrics and goodput read.
type lists struct {
	ttfts, e2els, tpots []float64
	// allTPOTs has a 0 for single-token outputs (goodput counts them).
	allTPOTs []float64
	nITL     int
}

// collect is the one pass for counters and the per-request lists; it
// fills s's counts, totals, output lengths and failure list.
func collect(s *Summary, recs []record.Record, p *Params) (*lists, error) {
	// Sized for the common case (all succeed) so appends never copy.
	l := &lists{
		ttfts: make([]float64, 0, len(recs)), e2els: make([]float64, 0, len(recs)),
		tpots: make([]float64, 0, len(recs)), allTPOTs: make([]float64, 0, len(recs)),
	}
	uncounted := 0
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			s.Failed++
			if len(s.FailedErrors) < maxFailedErrors {
				s.FailedErrors = append(s.FailedErrors, r.Error)
			}
			continue
		}
		n, src, guessed := OutputLen(r, p.NoTokenizer, p.Counter)
		if guessed {
			uncounted++
		}
		s.OutputLens[i], s.OutputSources[i] = n, src
		s.Completed++
		var ok1, ok2 bool
		s.TotalInput, ok1 = addCount(s.TotalInput, r.PromptLen)
		s.TotalOutput, ok2 = addCount(s.TotalOutput, n)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("record %d (index %d): total token count overflows", i, r.Index)
		}
		tpot, ok := RequestTPOT(r.Latency, r.TTFT, n)
		if ok {
			l.tpots = append(l.tpots, tpot)
		}
		l.allTPOTs = append(l.allTPOTs, tpot)
		l.ttfts = append(l.ttfts, r.TTFT)
		l.e2els = append(l.e2els, r.Latency)
		l.nITL += len(r.ITL)
	}
	if uncounted > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"%d successful request(s) had no usage count and no tokenizer was available to count their text; each counts as 1 output token (fallback-1)", uncounted))
	}
	if s.Completed == 0 {
		s.Warnings = append(s.Warnings, AllFailedWarning)
	}
	return l, nil
}

// percentileMetrics appends the selected metrics in vLLM's order. The
// lists are owned here, so describe may reorder them.
func percentileMetrics(s *Summary, recs []record.Record, p *Params, l *lists) {
	selected := make(map[string]bool, len(p.PercentileMetrics))
	for _, m := range p.PercentileMetrics {
		selected[m] = true
	}
	pct := p.Percentiles
	conf := stats.DefaultConfidence
	s.CI = CI{Confidence: conf}
	// add describes one metric with one value per request, and its
	// intervals.
	add := func(m string, values []float64) {
		st, c := describeWithCI(m, values, pct, conf)
		s.Metrics = append(s.Metrics, st)
		s.CI.Metrics = append(s.CI.Metrics, c)
	}
	for _, m := range MetricOrder {
		if !selected[m] {
			continue
		}
		switch m {
		case TTFT:
			if !p.NoTokenizer {
				add(m, l.ttfts)
			}
		case TPOT:
			if !p.NoTokenizer {
				add(m, l.tpots)
			}
		case ITL:
			if !p.NoTokenizer {
				s.Metrics = append(s.Metrics, describeSegs(m, pooledITL(recs, s.Completed), l.nITL, pct, false))
				s.CI.Metrics = append(s.CI.Metrics, pooledCI(m, l.nITL, pct))
			}
		case E2EL:
			add(m, l.e2els)
		case ClientQueueTime:
			if p.MaxConcurrency <= 0 {
				s.Warnings = append(s.Warnings, "percentile metric client_queue_time needs --max-concurrency; not reported")
				continue
			}
			add(m, successValues(recs, func(r *record.Record) float64 { return r.QueueTime }))
		case E2ELInclQueue:
			if p.MaxConcurrency <= 0 || !p.RateFinite {
				s.Warnings = append(s.Warnings, "percentile metric e2el_including_client_queue needs --max-concurrency and a finite --request-rate; not reported")
				continue
			}
			add(m, successValues(recs, func(r *record.Record) float64 { return r.Latency + r.QueueTime }))
		}
	}
}

// addCount returns a+b for non-negative counts, and false when the sum
// overflows int.
func addCount(a, b int) (int, bool) {
	if b < 0 || a > math.MaxInt-b {
		return a, false
	}
	return a + b, true
}

// countGood counts the successful requests that meet every SLO (see
// SLOs.Meets); the lists are in the same request order.
func countGood(slo SLOs, ttfts, allTPOTs, e2els []float64) int {
	good := 0
	for i := range ttfts {
		if slo.Meets(ttfts[i], allTPOTs[i], e2els[i]) {
			good++
		}
	}
	return good
}

// pooledITL lists the ITL slices of successful requests: vLLM's flat itls
// list (weighting long requests more) as segments, so the gaps themselves
// are never copied.
func pooledITL(recs []record.Record, completed int) [][]float64 {
	out := make([][]float64, 0, completed)
	for i := range recs {
		if recs[i].Success && len(recs[i].ITL) > 0 {
			out = append(out, recs[i].ITL)
		}
	}
	return out
}

func successValues(recs []record.Record, f func(*record.Record) float64) []float64 {
	out := make([]float64, 0, len(recs))
	for i := range recs {
		if recs[i].Success {
			out = append(out, f(&recs[i]))
		}
	}
	return out
}

// peaks computes vLLM's peak output token throughput and peak concurrent
// requests over successful requests, with 1-second buckets aligned to the
// first start t0: B = int(ceil(t_end - t0)) + 1 buckets; each token chunk
// at start+ttft, then + each itl in turn (float accumulation in order),
// goes to bucket int(ts - t0); each request adds 1 to every bucket from
// int(start - t0) to int((start + latency) - t0) inclusive. Example: two
// requests [0, 0.175) and [0.5, 0.7) both touch bucket 0, so the peak
// concurrency is 2.
func peaks(recs []record.Record) (tokensPerS float64, concurrent int, err error) {
	first := true
	var t0, tEnd float64
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		end := r.StartTime + r.Latency
		if first || r.StartTime < t0 {
			t0 = r.StartTime
		}
		if first || end > tEnd {
			tEnd = end
		}
		first = false
	}
	if first {
		return 0, 0, nil
	}
	span := math.Ceil(tEnd - t0)
	if !(span < maxBuckets) {
		return 0, 0, fmt.Errorf("successful requests span %.0f s (start_time %v to end %v); peak metrics support at most %d s: are the start times on one clock?", tEnd-t0, t0, tEnd, maxBuckets)
	}
	nb := int(span) + 1
	tokens := make([]int, nb)
	// delta[s]++ and delta[e+1]-- then a prefix sum: the same counts as
	// vLLM's per-second loop, in O(n + B).
	delta := make([]int, nb+1)
	fb := float64(nb)
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		ts := r.StartTime + r.TTFT
		if b := ts - t0; b >= 0 && b < fb {
			tokens[int(b)]++
		}
		for _, gap := range r.ITL {
			ts += gap
			if b := ts - t0; b >= 0 && b < fb {
				tokens[int(b)]++
			}
		}
		s := int(r.StartTime - t0)
		e := int((r.StartTime + r.Latency) - t0)
		delta[s]++
		delta[e+1]--
	}
	maxTok, maxConc, run := 0, 0, 0
	for b := range nb {
		maxTok = max(maxTok, tokens[b])
		run += delta[b]
		maxConc = max(maxConc, run)
	}
	return float64(maxTok), maxConc, nil
}

// extras computes llmbench's own latency figures (see Extra) and the p99
// dispatch lag in ms (for the warning, whatever percentiles are reported).
func extras(recs []record.Record, p *Params) (Extra, float64) {
	var ex Extra
	var queue, ttftI, e2elI, lag []float64
	// Without a concurrency cap nothing queues: the few microseconds between
	// dispatch and send are the client's own lag, as in vLLM, which reports
	// client_queue_time only under --max-concurrency.
	capped := p.MaxConcurrency > 0
	for i := range recs {
		r := &recs[i]
		if r.IntendedTime != nil {
			late := r.StartTime - *r.IntendedTime
			if capped {
				late -= r.QueueTime
			}
			lag = append(lag, late)
			late = r.StartTime - *r.IntendedTime
			if r.Success {
				ttftI = append(ttftI, late+r.TTFT)
				e2elI = append(e2elI, late+r.Latency)
			}
		}
		if r.Success {
			queue = append(queue, r.QueueTime)
		}
	}
	pct := p.Percentiles
	if capped {
		st := describe(ClientQueueTime, queue, pct)
		ex.ClientQueue = &st
	}
	lagP99 := 0.0
	if len(lag) > 0 {
		lagP99 = describe("dispatch_lag", slices.Clone(lag), []float64{99}).Percentiles[0]
		st := describe("dispatch_lag", lag, pct)
		ex.DispatchLag = &st
		a := describe("ttft_from_intended", ttftI, pct)
		b := describe("e2el_from_intended", e2elI, pct)
		ex.TTFTFromIntended, ex.E2ELFromIntended = &a, &b
	}
	return ex, lagP99
}

// streamSpecifics counts finish reasons, missing usage frames and count
// sources over successful requests, and error classes over failed ones.
func streamSpecifics(recs []record.Record, sources []string) StreamSpecifics {
	var ss StreamSpecifics
	srcCount := map[string]int{}
	errCount := map[string]int{}
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			class := r.ErrorClass
			if class == "" {
				class = "unclassified"
			}
			errCount[class]++
			continue
		}
		switch r.FinishReason {
		case "length":
			ss.Truncated++
		case "stop", "eos_token", "stop_sequence":
			ss.StoppedEOS++
		default:
			ss.FinishUnknown++
		}
		if !r.UsageSeen && (r.OutputTokens == nil || *r.OutputTokens == 0) {
			ss.WithoutUsage++
		}
		srcCount[sources[i]]++
	}
	for _, src := range []string{record.SourceServerUsage, record.SourceTokenizer, record.SourceFallback1} {
		if n := srcCount[src]; n > 0 {
			ss.Sources = append(ss.Sources, Count{src, n})
		}
	}
	for _, k := range sortedKeys(errCount) {
		ss.Errors = append(ss.Errors, Count{k, errCount[k]})
	}
	sort.SliceStable(ss.Errors, func(a, b int) bool { return ss.Errors[a].N > ss.Errors[b].N })
	return ss
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
