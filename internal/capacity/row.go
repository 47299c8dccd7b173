package capacity

import (
	"math"
	"strconv"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/servermetrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// Kind is what a sweep's load counts.
type Kind string

// Load kinds.
const (
	// Concurrency: closed loop at fixed concurrency; load is the number
	// of requests kept in flight.
	Concurrency Kind = "concurrency"
	// RequestRate: open loop; load is the request rate in req/s.
	RequestRate Kind = "request_rate"
	// Users: closed-loop users with think time; load is the user count.
	Users Kind = "users"
)

// Integer reports whether loads of this kind are whole numbers.
func (k Kind) Integer() bool { return k != RequestRate }

// Client-health limits (docs/capacity.md, "harness_limited"): over
// either, the client, not the server, may have set the pace, and the
// step is never counted as a server verdict.
const (
	// HarnessLagLimitMs is the p99 dispatch lag (sent - intended) above
	// which a step is harness-limited: metrics.DefaultLagWarning in ms.
	HarnessLagLimitMs = metrics.DefaultLagWarning * 1000
	// HarnessCPULimit is the client's CPU use, as a fraction of the cores
	// it may use, above which a step is harness-limited.
	HarnessCPULimit = 0.85
)

// Step describes one step beside its Summary: what the sweep set and
// what it measured about the client itself.
type Step struct {
	// Load is the concurrency, request rate or user count of the step.
	Load float64
	// Kind says which.
	Kind Kind
	// ResultFile is where the step's full result was saved ("" = not saved).
	ResultFile string
	// DispatchLagP99Ms is the p99 dispatch lag in ms; nil = take it from
	// the Summary when its percentiles include 99, else unknown.
	DispatchLagP99Ms *float64
	// ClientCPU is the client's CPU time over wall time and usable cores
	// (0..1); nil = not measured.
	ClientCPU *float64
	// MeanInFlight is the time-averaged number of requests in flight, if
	// the driver sampled it; nil = unknown (the Little's-law check then
	// uses the load itself for Concurrency and Users, see littles).
	MeanInFlight *float64
	// MeanThinkS is the users' mean think time in seconds (Users only;
	// 0 = none).
	MeanThinkS float64
	// Share is the fraction of the step's users (Concurrency, Users) this
	// row measured: a worker's share of a distributed sweep, whose Load
	// stays the whole step's so that the workers' steps match
	// (docs/distributed.md); 0 = all of them.
	Share float64
	// Utilization is the endpoint's instance utilisation over the step's
	// window (CloudWatch); nil = not read.
	Utilization *Utilization
	// Shares counts, per SLA term judged on the share of requests
	// (ShareTerm), the successful requests within its limit (ShareOf);
	// nil = not counted, and such terms are judged on the value.
	Shares map[string]Share
}

// Row is one step's summary row, the unit of analysis. JSON keys are
// the sweep file's (docs/capacity.md). Latency fields are 0 when the run
// did not report them (as vLLM reports an empty list); Metrics says
// which were reported.
type Row struct {
	Load     float64 `json:"load"`
	LoadKind Kind    `json:"load_kind"`
	// Runs is how many runs this row stands for (--runs; 1 = one run).
	Runs      int `json:"runs"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// Canceled counts the failed requests of class canceled: those still
	// in flight when the step's --step-duration (and its grace) ended,
	// cut by the client, not failed by the server.
	Canceled int `json:"canceled,omitempty"`
	// ErrorRate = the server's failures / the requests it had a chance to
	// answer: (failed − canceled) / (completed + failed − canceled); 0
	// with no requests. A gate on it (error_rate in an SLA, sweep's
	// --max-error-rate) then never charges the step's own end to the
	// server.
	ErrorRate         float64 `json:"error_rate"`
	RequestThroughput float64 `json:"request_throughput"`
	OutputThroughput  float64 `json:"output_throughput"`
	MeanTTFTMs        float64 `json:"mean_ttft_ms"`
	P99TTFTMs         float64 `json:"p99_ttft_ms"`
	MeanITLMs         float64 `json:"mean_itl_ms"`
	P99ITLMs          float64 `json:"p99_itl_ms"`
	MeanTPOTMs        float64 `json:"mean_tpot_ms"`
	MeanE2ELMs        float64 `json:"mean_e2el_ms"`
	MeanPerUserTPS    float64 `json:"mean_per_user_tps"`
	P10PerUserTPS     float64 `json:"p10_per_user_tps"`
	TokenGoodput      float64 `json:"token_goodput"`
	// MaxConcurrentRequests is vLLM's peak concurrency (1-second buckets).
	MaxConcurrentRequests float64 `json:"max_concurrent_requests"`
	// MeanInFlight is the sampled mean in flight; null when unknown.
	MeanInFlight *float64 `json:"mean_in_flight"`
	// LittlesLawRatio is the Little's-law estimate over the expected
	// in-flight count (see littles); null when it cannot be formed.
	LittlesLawRatio *float64 `json:"littles_law_ratio"`
	// LittlesLawOff is true when the ratio is off by more than
	// LittleTolerance.
	LittlesLawOff    bool     `json:"littles_law_off"`
	DispatchLagP99Ms *float64 `json:"dispatch_lag_p99_ms"`
	ClientCPU        *float64 `json:"client_cpu"`
	// HarnessLimited: the client may have been the limit (see
	// HarnessLagLimitMs, HarnessCPULimit); HarnessReason says why.
	HarnessLimited bool   `json:"harness_limited"`
	HarnessReason  string `json:"harness_reason,omitempty"`
	// SLATerms is each SLA term's outcome; SLAPass is their conjunction,
	// null without an SLA. Set by Analyze.
	SLATerms []TermResult `json:"sla_terms"`
	SLAPass  *bool        `json:"sla_pass"`
	// SLAVerdict is pass, fail or unresolved: each term judged on an
	// interval of its figure (see TermResult.JudgedOn); absent without an
	// SLA. Set by Analyze.
	SLAVerdict string `json:"sla_verdict,omitempty"`
	// Shares are Step.Shares (one run only; absent when not counted).
	Shares map[string]Share `json:"sla_shares,omitempty"`
	// MeanCI is the Student-t interval of each mean_*_ms figure of one
	// run (llmbench.ci); absent when not known.
	MeanCI map[string]stats.Interval `json:"mean_ci,omitempty"`
	// RunStats is each figure over the step's runs as stats.Runs gives it
	// (mean, std, se, t critical, low, high, cv); absent for one run.
	RunStats map[string]stats.RunStats `json:"run_stats,omitempty"`
	// Convergence is --runs auto's record for the step: the runs it took
	// and whether the deciding figures' intervals converged; absent for
	// a fixed number of runs.
	Convergence *stats.Convergence `json:"convergence,omitempty"`
	// ThroughputFrom says what the request, output and total token
	// throughputs cover: ThroughputSteady (the closed-loop step's
	// steady_state window, SteadyWindowS long) or ThroughputRun (the
	// whole run); absent for an open-loop step (always the whole run).
	ThroughputFrom string   `json:"throughput_from,omitempty"`
	SteadyWindowS  *float64 `json:"steady_window_s,omitempty"`
	// RunThroughput holds the whole-run throughputs the steady ones
	// replaced (same keys); absent when none were.
	RunThroughput map[string]float64 `json:"run_throughput,omitempty"`
	// ResultFile is the step's saved result ("" = not saved).
	ResultFile string `json:"result_file"`
	// Metrics holds every numeric result key of the step: vLLM's
	// latency statistics (mean_ttft_ms, p99.9_itl_ms, ...), the per-user
	// view and the throughputs; SLA terms look keys up here.
	Metrics map[string]float64 `json:"metrics"`
	// Spread is min, max and std of each figure over the runs; absent
	// for a single run.
	Spread map[string]Range `json:"spread,omitempty"`
	// MeanThinkS is the users' mean think time in seconds (Users only;
	// 0 = none), used by the Little's-law check.
	MeanThinkS float64 `json:"mean_think_s"`
	// Share is Step.Share; absent for a whole step.
	Share float64 `json:"load_share,omitempty"`
	// USDPerHour, USDPerRequest and USDPer1MOutputTokens are the step's
	// cost at its load (see Sweep.Price); absent without pricing, and
	// the last two when nothing completed.
	USDPerHour           *float64 `json:"usd_per_hour,omitempty"`
	USDPerRequest        *float64 `json:"usd_per_request,omitempty"`
	USDPer1MOutputTokens *float64 `json:"usd_per_1m_output_tokens,omitempty"`
	// Utilization is the endpoint's instance utilisation over the step's
	// window, from CloudWatch; absent when not read.
	Utilization *Utilization `json:"utilization,omitempty"`
	// Server is the server's own view of the step (--server-metrics,
	// docs/server-metrics.md); absent when not read.
	Server *servermetrics.Summary `json:"server,omitempty"`
}

// TermResult is one SLA term's outcome at one step.
type TermResult struct {
	Term
	// Actual is the step's value of Term.Key; null when not reported.
	Actual *float64 `json:"actual"`
	// Pass: the value was reported and met the term.
	Pass bool `json:"pass"`
	// Headroom is Term.Headroom(Actual); null when not reported.
	Headroom *float64 `json:"headroom"`
	// Verdict is pass, fail or unresolved, judged on Interval.
	Verdict string `json:"verdict,omitempty"`
	// JudgedOn says what the verdict rests on: runs, share, mean or value
	// (see the Judged constants).
	JudgedOn string `json:"judged_on,omitempty"`
	// Interval is the interval judged: of the figure over the runs, of
	// the mean, or of the share of requests within the limit; null when
	// judged on the value.
	Interval *stats.Interval `json:"interval,omitempty"`
	// TargetShare is the share a share-judged term needs (0.99 for p99).
	TargetShare *float64 `json:"target_share,omitempty"`
}

// RowFrom turns one step's Summary into a Row. The Summary should cover
// e2el among its percentile metrics and 99 among its percentiles, or the
// row's mean_e2el_ms, p99 fields and Little's-law check stay empty. SLA
// fields are filled by Analyze.
func RowFrom(sum *metrics.Summary, st Step) Row {
	r := Row{
		Load: st.Load, LoadKind: st.Kind, Runs: 1,
		Completed: sum.Completed, Failed: sum.Failed,
		MeanInFlight:     st.MeanInFlight,
		DispatchLagP99Ms: st.DispatchLagP99Ms,
		ClientCPU:        st.ClientCPU,
		ResultFile:       st.ResultFile,
		MeanThinkS:       st.MeanThinkS,
		Share:            st.Share,
		Utilization:      st.Utilization,
		Shares:           st.Shares,
	}
	for _, c := range sum.CI.Metrics {
		if c.Mean != nil {
			if r.MeanCI == nil {
				r.MeanCI = map[string]stats.Interval{}
			}
			r.MeanCI["mean_"+c.Metric+"_ms"] = *c.Mean
		}
	}
	r.Canceled = canceledOf(sum)
	r.Metrics = Figures(sum)
	if r.DispatchLagP99Ms == nil && sum.Extra.DispatchLag != nil {
		for j, p := range sum.Percentiles {
			if p == 99 {
				v := sum.Extra.DispatchLag.Percentiles[j]
				r.DispatchLagP99Ms = &v
			}
		}
	}
	r.derive()
	return r
}

// pctKey is a percentile's key prefix, "p99" or "p99.9".
func pctKey(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// derive sets the Row's named figures from Metrics (0 when absent), then
// the client-health verdict and the Little's-law check.
func (r *Row) derive() {
	for _, f := range r.fields() {
		*f.p = r.Metrics[f.key]
	}
	r.judgeHealth()
	r.littles()
}

type field struct {
	key string
	p   *float64
}

// fields are the Row's named copies of keys that live in Metrics.
func (r *Row) fields() []field {
	return []field{
		{"error_rate", &r.ErrorRate}, {metrics.KeyRequestThroughput, &r.RequestThroughput},
		{metrics.KeyOutputThroughput, &r.OutputThroughput},
		{metrics.KeyMeanTTFT, &r.MeanTTFTMs}, {metrics.KeyP99TTFT, &r.P99TTFTMs},
		{metrics.KeyMeanITL, &r.MeanITLMs}, {metrics.KeyP99ITL, &r.P99ITLMs},
		{metrics.KeyMeanTPOT, &r.MeanTPOTMs}, {metrics.KeyMeanE2EL, &r.MeanE2ELMs},
		{"mean_per_user_tps", &r.MeanPerUserTPS}, {"p10_per_user_tps", &r.P10PerUserTPS},
		{"token_goodput", &r.TokenGoodput}, {metrics.KeyMaxConcurrentRequests, &r.MaxConcurrentRequests},
	}
}

// Value is the step's value of a result key, and whether it was reported.
func (r *Row) Value(key string) (float64, bool) {
	v, ok := r.Metrics[key]
	return v, ok
}

// judgeHealth sets HarnessLimited from the client's health figures.
func (r *Row) judgeHealth() {
	r.HarnessLimited, r.HarnessReason = false, ""
	switch {
	case r.DispatchLagP99Ms != nil && *r.DispatchLagP99Ms > HarnessLagLimitMs:
		r.HarnessLimited = true
		r.HarnessReason = "dispatch lag p99 " + strconv.FormatFloat(*r.DispatchLagP99Ms, 'f', 1, 64) +
			" ms > " + strconv.FormatFloat(HarnessLagLimitMs, 'f', -1, 64) + " ms"
	case r.ClientCPU != nil && *r.ClientCPU > HarnessCPULimit:
		r.HarnessLimited = true
		r.HarnessReason = "client CPU " + strconv.FormatFloat(100**r.ClientCPU, 'f', 0, 64) +
			" % > " + strconv.FormatFloat(100*HarnessCPULimit, 'f', 0, 64) + " %"
	}
}

// LittleTolerance is how far the Little's-law ratio may stray from 1
// before the step is flagged (docs/capacity.md, "Little's law").
const LittleTolerance = 0.15

// littles sets the Little's-law cross-check: requests in the system L =
// throughput X × time in the system W. The estimate X × mean E2EL is set
// against the in-flight count the step should have had: the sampled mean
// when known, else the load itself for Concurrency (times Share for a
// worker), and for Users the user count with W widened to E2EL + think
// time (each user is either waiting or thinking). An open-loop step without a sample has no
// reference and no ratio. Example: 100 users, 2 s think, mean E2EL 3 s,
// 20 req/s: 20 × (3 + 2) = 100, ratio 1.0. X is the whole run's, as W
// and the in-flight count are: a steady window's request throughput
// (SteadyThroughput) counts completions in the window over its length and
// runs below the run's when requests end in waves.
func (r *Row) littles() {
	r.LittlesLawRatio, r.LittlesLawOff = nil, false
	x := r.RequestThroughput
	if run, ok := r.RunThroughput[metrics.KeyRequestThroughput]; ok {
		x = run
	}
	if _, ok := r.Metrics[metrics.KeyMeanE2EL]; !ok || x <= 0 {
		return
	}
	w := r.MeanE2ELMs / 1000
	var ref float64
	switch {
	case r.MeanInFlight != nil:
		ref = *r.MeanInFlight
	case r.LoadKind == Concurrency:
		ref = r.Load
	case r.LoadKind == Users:
		ref, w = r.Load, w+r.MeanThinkS
	default:
		return
	}
	if r.MeanInFlight == nil && r.Share > 0 {
		ref *= r.Share // a worker keeps only its users in flight
	}
	if ref <= 0 {
		return
	}
	ratio := x * w / ref
	r.LittlesLawRatio = &ratio
	r.LittlesLawOff = math.Abs(ratio-1) > LittleTolerance
}
