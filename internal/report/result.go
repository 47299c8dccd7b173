package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// ExtrasKey is the top-level key of llmbench's own figures in the result
// JSON. It comes after all of vLLM's keys, so readers of vLLM's format
// (which look keys up by name) ignore it.
const ExtrasKey = "llmbench"

// ResultOptions choose optional parts of the result JSON.
type ResultOptions struct {
	// Detailed keeps the per-request arrays (vLLM's --save-detailed):
	// input_lens, output_lens, ttfts, itls, start_times, generated_texts,
	// errors. Without it they are removed, as vLLM removes them;
	// latencies and queue_times stay either way.
	Detailed bool
	// Extras appends the ExtrasKey object (queue and dispatch-lag
	// summaries, the per-user view, stream specifics, warnings, the
	// interrupted flag).
	Extras bool
	// WithSteadyState adds the top-level steady_state key of vLLM's Rust
	// bench client after vLLM's other keys: SteadyState, or null when it
	// is nil (that client writes null when the run is not a closed loop
	// at an infinite rate with --max-concurrency, under
	// --no-steady-state, and when no window was found).
	WithSteadyState bool
	SteadyState     *metrics.SteadyState
}

// setPerRequest sets the per-request arrays in vLLM's order: input_lens,
// output_lens, ttfts, itls, latencies, start_times, queue_times,
// generated_texts, errors. latencies (each record's E2EL in seconds, 0
// for failed requests) and queue_times (each record's wait for a
// concurrency slot, record.QueueTime) are in every result, as newer vLLM
// keeps them without --save-detailed (testdata/conformance/metrics/README.md);
// the others only with detailed, as vLLM removes them without it.
func setPerRequest(o *Object, s *metrics.Summary, recs []record.Record, detailed bool) {
	n := len(recs)
	latencies := make([]float64, n)
	queues := make([]float64, n)
	for i := range recs {
		latencies[i] = recs[i].Latency
		queues[i] = recs[i].QueueTime
	}
	if !detailed {
		o.Set("latencies", latencies)
		o.Set("queue_times", queues)
		return
	}
	inputLens := make([]int, n)
	ttfts := make([]float64, n)
	itls := make([][]float64, n)
	starts := make([]float64, n)
	texts := make([]string, n)
	errs := make([]string, n)
	for i := range recs {
		r := &recs[i]
		inputLens[i] = r.PromptLen
		ttfts[i] = r.TTFT
		itls[i] = r.ITL
		if itls[i] == nil {
			itls[i] = []float64{}
		}
		starts[i] = r.StartTime
		texts[i] = r.GeneratedText
		errs[i] = r.Error
	}
	o.Set("input_lens", inputLens)
	o.Set("output_lens", s.OutputLens)
	o.Set("ttfts", ttfts)
	o.Set("itls", itls)
	o.Set("latencies", latencies)
	o.Set("start_times", starts)
	o.Set("queue_times", queues)
	o.Set("generated_texts", texts)
	o.Set("errors", errs)
}

// Result builds the result JSON object vLLM saves (save_result), with its
// keys in vLLM's order (docs/metrics.md#result-json-keys), from the
// Summary of recs and the run's params. p.Date is used as-is for "date".
func Result(s *metrics.Summary, p *record.Params, recs []record.Record, opt ResultOptions) (*Object, error) {
	if len(recs) != len(s.OutputLens) {
		return nil, fmt.Errorf("report: %d records but the summary covers %d", len(recs), len(s.OutputLens))
	}
	o := NewObject()
	o.Set("date", p.Date)
	o.Set("endpoint_type", p.Backend)
	o.Set("backend", p.Backend)
	o.Set("label", p.Label)
	o.Set("model_id", p.ModelID)
	o.Set("tokenizer_id", p.ResolvedTokenizerID())
	numPrompts := len(recs)
	if p.NumPrompts != nil {
		numPrompts = *p.NumPrompts
	}
	o.Set("num_prompts", numPrompts)
	for _, kv := range p.Metadata {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("report: metadata item %q is not KEY=VALUE", kv)
		}
		o.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	o.Set("request_rate", p.RequestRate)
	o.Set("burstiness", burstiness(p.Burstiness))
	o.Set(metrics.KeyMaxConcurrency, p.MaxConcurrency)
	if p.RampUpStrategy != "" {
		o.Set("ramp_up_strategy", p.RampUpStrategy)
		o.Set("ramp_up_start_rps", p.RampUpStartRPS)
		o.Set("ramp_up_end_rps", p.RampUpEndRPS)
	}
	o.Set(metrics.KeyDuration, s.Duration)
	o.Set(metrics.KeyCompleted, s.Completed)
	o.Set(metrics.KeyFailed, s.Failed)
	o.Set(metrics.KeyTotalInputTokens, s.TotalInput)
	o.Set(metrics.KeyTotalOutputTokens, s.TotalOutput)
	o.Set(metrics.KeyRequestThroughput, s.RequestThroughput)
	o.Set(metrics.KeyRequestGoodput, s.RequestGoodput)
	o.Set(metrics.KeyOutputThroughput, s.OutputThroughput)
	o.Set(metrics.KeyTotalTokenThroughput, s.TotalTokenThroughput)
	setPerRequest(o, s, recs, opt.Detailed)
	o.Set(metrics.KeyMaxOutputTokensPerS, s.MaxOutputTokensPerS)
	o.Set(metrics.KeyMaxConcurrentRequests, s.MaxConcurrentRequests)
	o.Set("rtfx", s.RTFx)
	if p.RampUpStrategy != "" {
		events := make([]any, len(p.RPSChangeEvents))
		for i, e := range p.RPSChangeEvents {
			ev := NewObject()
			ev.Set("rps", e.RPS)
			ev.Set("timestamp", e.Timestamp)
			events[i] = ev
		}
		o.Set("rps_change_events", events)
	}
	for i := range s.Metrics {
		setStats(o, "", "_"+s.Metrics[i].Metric+"_ms", &s.Metrics[i], s.Percentiles)
	}
	if opt.WithSteadyState {
		// Last of vLLM's keys, as the Rust client builds its result.
		o.Set(SteadyStateKey, steadyStateValue(opt.SteadyState))
	}
	if opt.Extras {
		o.Set(ExtrasKey, extras(s, p))
	}
	return o, nil
}

// burstiness is a Rate in Python's float form (inf prints as Infinity).
func burstiness(b record.Rate) float64 { return float64(b) }

// setStats sets mean/median/std/p<p> keys named prefix+stat+suffix, e.g.
// "mean" + "_ttft_ms". Repeated percentiles keep the first key's position,
// as a Python dict does.
func setStats(o *Object, prefix, suffix string, st *metrics.Stats, pcts []float64) {
	o.Set(prefix+"mean"+suffix, st.Mean)
	o.Set(prefix+"median"+suffix, st.Median)
	o.Set(prefix+"std"+suffix, st.Std)
	for i, p := range pcts {
		o.Set(prefix+"p"+PercentileLabel(p)+suffix, st.Percentiles[i])
	}
}

// extras builds llmbench's own object: run facts, the queue and
// intended-time latency summaries, the per-run confidence intervals
// (ci), stream specifics and warnings.
func extras(s *metrics.Summary, p *record.Params) *Object {
	x := NewObject()
	x.Set("interrupted", p.Interrupted)
	if p.EndpointName != "" {
		x.Set("endpoint_name", p.EndpointName)
	}
	statsObj := func(st *metrics.Stats) *Object {
		so := NewObject()
		so.Set("n", st.N)
		setStats(so, "", "_ms", st, s.Percentiles)
		return so
	}
	for _, e := range []struct {
		key string
		st  *metrics.Stats
	}{
		{"client_queue_time", s.Extra.ClientQueue},
		{"ttft_from_intended", s.Extra.TTFTFromIntended},
		{"e2el_from_intended", s.Extra.E2ELFromIntended},
		{"dispatch_lag", s.Extra.DispatchLag},
	} {
		if e.st != nil {
			x.Set(e.key, statsObj(e.st))
		}
	}
	setPerUser(x, &s.PerUser)
	setPerTurn(x, s)
	ss := &s.Stream
	so := NewObject()
	so.Set("truncated_length", ss.Truncated)
	so.Set("stopped_eos", ss.StoppedEOS)
	so.Set("finish_reason_unknown", ss.FinishUnknown)
	so.Set("without_usage", ss.WithoutUsage)
	src := NewObject()
	for _, c := range ss.Sources {
		src.Set(c.Name, c.N)
	}
	so.Set("output_token_sources", src)
	errs := NewObject()
	for _, c := range ss.Errors {
		errs.Set(c.Name, c.N)
	}
	so.Set("errors", errs)
	x.Set("stream", so)
	if s.CI.Confidence > 0 { // a Summary not made by metrics.Summarize has none
		x.Set("ci", ciObject(s))
	}
	warnings := s.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	x.Set("warnings", warnings)
	return x
}

// setPerUser sets the per-user view's keys (docs/capacity.md): per-user
// TPS as mean_per_user_tps, median_per_user_tps, p1/p5/p10_per_user_tps
// and per_user_tps_n (requests covered), system_output_tps, and
// token_goodput (tok/s) with token_goodput_tokens and
// token_goodput_requests. All are tokens per second except the counts.
func setPerUser(x *Object, pu *metrics.PerUser) {
	x.Set("per_user_tps_n", pu.N)
	x.Set("mean_per_user_tps", pu.MeanTPS)
	x.Set("median_per_user_tps", pu.MedianTPS)
	for i, q := range metrics.PerUserPercentiles {
		v := 0.0
		if i < len(pu.LowTPS) {
			v = pu.LowTPS[i]
		}
		x.Set("p"+PercentileLabel(q)+"_per_user_tps", v)
	}
	x.Set("system_output_tps", pu.SystemTPS)
	x.Set("token_goodput", pu.TokenGoodput)
	x.Set("token_goodput_tokens", pu.GoodputTokens)
	x.Set("token_goodput_requests", pu.GoodputRequests)
}

// setPerTurn sets per_turn, TTFT by turn index of a multi-turn run:
// [{"turn", "n", "mean_ttft_ms", "median_ttft_ms", "p<P>_ttft_ms"...}].
func setPerTurn(x *Object, s *metrics.Summary) {
	if s.PerTurn == nil {
		return
	}
	turns := make([]any, 0, len(s.PerTurn))
	for _, t := range s.PerTurn {
		o := NewObject()
		o.Set("turn", t.Turn)
		o.Set("n", t.N)
		o.Set(metrics.KeyMeanTTFT, t.TTFT.Mean)
		o.Set(metrics.KeyMedianTTFT, t.TTFT.Median)
		for i, q := range s.Percentiles {
			o.Set("p"+PercentileLabel(q)+"_ttft_ms", t.TTFT.Percentiles[i])
		}
		turns = append(turns, o)
	}
	x.Set("per_turn", turns)
}

// WriteResult writes the result JSON (see Result) as Python's json.dump
// would, without a trailing newline (like vLLM's file).
func WriteResult(w io.Writer, s *metrics.Summary, p *record.Params, recs []record.Record, opt ResultOptions) error {
	o, err := Result(s, p, recs, opt)
	if err != nil {
		return err
	}
	return o.WriteJSON(w)
}

// ResultFilename is vLLM's automatic result file name (docs/metrics.md#result-file-name):
// {label}-{rate}qps[-concurrency{M}]-{base_model_id}-{date}.json, or with
// ramp-up {label}-ramp-up-{strategy}-{start}qps-{end}qps[...]-...; label
// defaults to the backend, rate is Python's float text ("inf", "10.0"),
// base_model_id is the model id after its last "/".
func ResultFilename(p *record.Params) string {
	base := p.ModelID
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	conc := ""
	if p.MaxConcurrency != nil {
		conc = fmt.Sprintf("-concurrency%d", *p.MaxConcurrency)
	}
	label := p.Backend
	if p.Label != nil && *p.Label != "" {
		label = *p.Label
	}
	if p.RampUpStrategy != "" {
		return fmt.Sprintf("%s-ramp-up-%s-%sqps-%sqps%s-%s-%s.json", label, p.RampUpStrategy,
			intOrNone(p.RampUpStartRPS), intOrNone(p.RampUpEndRPS), conc, base, p.Date)
	}
	return fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, PyRepr(float64(p.RequestRate)), conc, base, p.Date)
}

func intOrNone(v *int) string {
	if v == nil {
		return "None"
	}
	return fmt.Sprint(*v)
}
