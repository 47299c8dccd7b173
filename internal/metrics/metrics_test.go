package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/record"
)

func intp(v int) *int         { return &v }
func f64p(v float64) *float64 { return &v }
func ok(start, ttft float64, itl []float64, latency float64, usage *int, text string) record.Record {
	return record.Record{Success: true, PromptLen: 10, OutputTokens: usage, TTFT: ttft, ITL: itl, Latency: latency, StartTime: start, GeneratedText: text}
}

func mustSummarize(t *testing.T, recs []record.Record, p Params) *Summary {
	t.Helper()
	s, err := Summarize(recs, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func stat(s *Summary, m string) *Stats {
	for i := range s.Metrics {
		if s.Metrics[i].Metric == m {
			return &s.Metrics[i]
		}
	}
	return nil
}

// countingTokenizer counts words and how often it was asked.
type countingTokenizer struct{ calls int }

func (c *countingTokenizer) CountTokens(s string) int { c.calls++; return len(strings.Fields(s)) }

func TestOutputLengthFallback(t *testing.T) {
	t.Parallel()
	tokenized := ok(0, 0.1, []float64{0.01}, 0.2, nil, "saved")
	tokenized.OutputTokensSource = record.SourceTokenizer
	tokenized.TokenizerCount = 7
	savedOnly := ok(0, 0.1, []float64{0.01}, 0.2, nil, "four words are here")
	savedOnly.TokenizerCount = 6
	recs := []record.Record{
		ok(0, 0.1, []float64{0.01}, 0.2, intp(5), "a b c"),     // usage wins
		ok(0, 0.1, []float64{0.01}, 0.2, nil, "one two three"), // no usage: count words
		ok(0, 0.1, []float64{0.01}, 0.2, intp(0), "x y"),       // usage 0 counts as none
		tokenized, // a saved tokenizer count is reused, not recounted
		savedOnly, // a saved count without a source is used too
		{Success: false, PromptLen: 3, Error: "boom", OutputTokens: intp(9)}, // failed: 0
	}
	tests := []struct {
		name      string
		p         Params
		wantLens  []int
		wantSrc   []string
		wantCalls int
		wantWarn  bool
	}{
		{"tokenizer counts the text", Params{Duration: 1}, []int{5, 3, 2, 7, 6, 0},
			[]string{"server-usage", "tokenizer", "tokenizer", "tokenizer", "tokenizer", ""}, 2, false},
		{"no tokenizer (--skip-tokenizer-init) gives 1", Params{Duration: 1, NoTokenizer: true}, []int{5, 1, 1, 1, 1, 0},
			[]string{"server-usage", "fallback-1", "fallback-1", "fallback-1", "fallback-1", ""}, 0, false},
		{"tokenizer declared but no counter: 1 and a warning", Params{Duration: 1, Counter: nil}, []int{5, 1, 1, 7, 6, 0},
			[]string{"server-usage", "fallback-1", "fallback-1", "tokenizer", "tokenizer", ""}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &countingTokenizer{}
			p := tt.p
			if tt.wantCalls > 0 {
				p.Counter = c
			}
			s := mustSummarize(t, recs, p)
			if diff := cmp.Diff(tt.wantLens, s.OutputLens); diff != "" {
				t.Errorf("output lens (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSrc, s.OutputSources); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			if c.calls != tt.wantCalls {
				t.Errorf("tokenizer calls = %d, want %d", c.calls, tt.wantCalls)
			}
			warned := slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "fallback-1") })
			if warned != tt.wantWarn {
				t.Errorf("fallback warning = %v, want %v (%q)", warned, tt.wantWarn, s.Warnings)
			}
			if s.TotalInput != 50 {
				t.Errorf("total input = %d, want 50 (successful requests only)", s.TotalInput)
			}
		})
	}
}

func TestTPOTAndPooledITL(t *testing.T) {
	t.Parallel()
	recs := []record.Record{
		ok(0, 0.1, nil, 0.1, intp(1), "a"),                                  // 1 token: no TPOT
		ok(0, 0.1, []float64{0.02}, 0.12, intp(2), "a b"),                   // TPOT 0.02
		ok(0, 0.2, []float64{0.01, 0.01, 0.01, 0.07}, 0.3, intp(11), "xyz"), // TPOT 0.01, 4 ITLs
		{Success: false, TTFT: 0.05, ITL: []float64{5, 5}, Error: "cut"},    // partial: ignored
	}
	s := mustSummarize(t, recs, Params{Duration: 2, PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL}, Percentiles: []float64{50}})
	tpot := stat(s, TPOT)
	if tpot.N != 2 || math.Abs(tpot.Mean-15) > 1e-9 {
		t.Errorf("TPOT over %d requests, mean %v ms; want 2 and 15", tpot.N, tpot.Mean)
	}
	itl := stat(s, ITL)
	if itl.N != 5 || math.Abs(itl.Mean-24) > 1e-9 || math.Abs(itl.Median-10) > 1e-9 {
		t.Errorf("ITL n=%d mean=%v median=%v; want 5 chunk gaps, mean 24, median 10", itl.N, itl.Mean, itl.Median)
	}
	if got := []string{s.Metrics[0].Metric, s.Metrics[3].Metric}; got[0] != TTFT || got[1] != E2EL {
		t.Errorf("metric order %v", got)
	}
	if s.Completed != 3 || s.Failed != 1 || s.TotalOutput != 14 || s.RequestThroughput != 1.5 || s.OutputThroughput != 7 {
		t.Errorf("counters: %+v", s)
	}
}

func TestSummarizeDoesNotModifyRecords(t *testing.T) {
	t.Parallel()
	recs := []record.Record{
		ok(0, 0.3, []float64{0.05, 0.01, 0.03}, 0.4, intp(4), "a"),
		ok(1, 0.1, []float64{0.09, 0.02}, 0.3, intp(3), "b"),
	}
	before := make([]record.Record, len(recs))
	for i, r := range recs {
		before[i] = r
		before[i].ITL = slices.Clone(r.ITL)
	}
	mustSummarize(t, recs, Params{Duration: 1})
	if diff := cmp.Diff(before, recs); diff != "" {
		t.Errorf("records changed (-before +after):\n%s", diff)
	}
}

func TestZeroSuccesses(t *testing.T) {
	t.Parallel()
	recs := []record.Record{
		{Success: false, PromptLen: 5, Error: "Bad Gateway", ErrorClass: record.ErrHTTP5xx},
		{Success: false, PromptLen: 5, Error: "timeout", ErrorClass: record.ErrTimeout, TTFT: 0.5, ITL: []float64{1}},
	}
	s := mustSummarize(t, recs, Params{Duration: 3, Goodput: map[string]float64{"ttft": 100}, PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL}})
	if !slices.Contains(s.Warnings, AllFailedWarning) {
		t.Errorf("warnings %q lack vLLM's all-failed warning", s.Warnings)
	}
	if s.Completed != 0 || s.Failed != 2 || s.TotalInput != 0 || s.RequestThroughput != 0 ||
		s.MaxOutputTokensPerS != 0 || s.MaxConcurrentRequests != 0 || s.RequestGoodput == nil || *s.RequestGoodput != 0 {
		t.Errorf("summary %+v", s)
	}
	for _, st := range s.Metrics {
		if st.Mean != 0 || st.Median != 0 || st.Std != 0 || st.Percentiles[0] != 0 {
			t.Errorf("%s stats %+v, want all 0", st.Metric, st)
		}
	}
	if diff := cmp.Diff([]string{"Bad Gateway", "timeout"}, s.FailedErrors); diff != "" {
		t.Errorf("failed errors: %s", diff)
	}
}

func TestGoodput(t *testing.T) {
	t.Parallel()
	recs := []record.Record{
		ok(0, 0.2, []float64{0.03}, 0.23, intp(2), ""), // ttft = SLO, tpot = SLO: good
		ok(0, 0.2000001, nil, 0.2000001, intp(1), ""),  // ttft over
		ok(0, 0.1, nil, 0.9, intp(1), ""),              // 1 token: TPOT 0 passes; good
		ok(0, 0.1, []float64{0.1}, 0.2, intp(2), ""),   // tpot 0.1 > 0.03
		{Success: false, Error: "x"},                   // never good
	}
	tests := []struct {
		name string
		slo  map[string]float64
		good int
	}{
		{"ttft and tpot, equality is good", map[string]float64{"ttft": 200, "tpot": 30}, 2},
		{"e2el only", map[string]float64{"e2el": 230}, 3},
		{"zero SLO", map[string]float64{"ttft": 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustSummarize(t, recs, Params{Duration: 2, Goodput: tt.slo})
			if s.Good != tt.good || *s.RequestGoodput != float64(tt.good)/2 {
				t.Errorf("good = %d (goodput %v), want %d", s.Good, *s.RequestGoodput, tt.good)
			}
		})
	}
	if s := mustSummarize(t, recs, Params{Duration: 2}); s.RequestGoodput != nil {
		t.Errorf("goodput without SLOs = %v, want nil (null)", *s.RequestGoodput)
	}
}

func TestPeaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		recs     []record.Record
		wantTok  float64
		wantConc int
	}{
		{"sequential requests inside one second both count (spec example)", []record.Record{
			ok(10, 0.1, []float64{0.075}, 0.175, intp(2), ""),
			ok(10.5, 0.1, []float64{0.1}, 0.2, intp(2), ""),
		}, 4, 2},
		{"end exactly on a bucket boundary touches the next bucket", []record.Record{
			ok(0, 0.5, []float64{0.5}, 1.0, intp(2), ""), // chunks at 0.5 and 1.0
			ok(1.5, 0.25, nil, 0.25, intp(1), ""),
		}, 2, 2},
		{"failed requests do not move t0", []record.Record{
			{Success: false, StartTime: 0, Error: "x"},
			ok(0.75, 0.5, []float64{0.125, 0.125}, 0.75, intp(3), ""), // t0 = 0.75: chunks 0.5, 0.625, 0.75 after t0
		}, 3, 1},
		{"no successes", []record.Record{{Success: false, Error: "x"}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustSummarize(t, tt.recs, Params{Duration: 5})
			if s.MaxOutputTokensPerS != tt.wantTok || s.MaxConcurrentRequests != tt.wantConc {
				t.Errorf("peaks = %v tok/s, %d requests; want %v, %d", s.MaxOutputTokensPerS, s.MaxConcurrentRequests, tt.wantTok, tt.wantConc)
			}
		})
	}
	wide := []record.Record{ok(0, 0.1, nil, 0.1, intp(1), ""), ok(1e12, 0.1, nil, 0.1, intp(1), "")}
	if _, err := Summarize(wide, Params{Duration: 1}); err == nil || !strings.Contains(err.Error(), "span") {
		t.Errorf("records 1e12 s apart: err = %v, want a span error", err)
	}
}

func TestExtrasAndQueueMetrics(t *testing.T) {
	t.Parallel()
	a := ok(1.5, 0.2, []float64{0.1}, 0.3, intp(2), "")
	a.IntendedTime, a.QueueTime = f64p(1.0), 0.5 // waited 0.5 s for a slot, no lag
	b := ok(2.05, 0.1, nil, 0.1, intp(1), "")
	b.IntendedTime = f64p(2.0) // 50 ms late without queueing: dispatch lag
	c := record.Record{Success: false, StartTime: 3, IntendedTime: f64p(3), Error: "x"}
	recs := []record.Record{a, b, c}
	p := Params{Duration: 4, MaxConcurrency: 1, RateFinite: true, Percentiles: []float64{99},
		PercentileMetrics: []string{E2EL, ClientQueueTime, E2ELInclQueue}}
	s := mustSummarize(t, recs, p)
	names := []string{}
	for _, st := range s.Metrics {
		names = append(names, st.Metric)
	}
	if diff := cmp.Diff([]string{E2EL, ClientQueueTime, E2ELInclQueue}, names); diff != "" {
		t.Fatalf("metrics: %s", diff)
	}
	if q := stat(s, ClientQueueTime); math.Abs(q.Mean-250) > 1e-9 {
		t.Errorf("client queue mean = %v ms, want 250", q.Mean)
	}
	if q := stat(s, E2ELInclQueue); math.Abs(q.Mean-450) > 1e-9 {
		t.Errorf("e2el incl queue mean = %v ms, want (800+100)/2", q.Mean)
	}
	ex := s.Extra
	if ex.TTFTFromIntended == nil || math.Abs(ex.TTFTFromIntended.Mean-(700+150)/2.0) > 1e-9 {
		t.Errorf("ttft from intended = %+v, want mean 425 ms", ex.TTFTFromIntended)
	}
	if ex.DispatchLag == nil || ex.DispatchLag.N != 3 || math.Abs(ex.DispatchLag.Percentiles[0]-(50-50*0.02)) > 1e-6 {
		t.Errorf("dispatch lag = %+v, want 3 values, p99 49 ms", ex.DispatchLag)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, "dispatch lag p99 is 49.00 ms") }) {
		t.Errorf("warnings %q lack the dispatch lag warning", s.Warnings)
	}

	// The warning looks at p99 whatever percentiles are reported.
	p50 := p
	p50.Percentiles = []float64{50}
	if s := mustSummarize(t, recs, p50); !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, "dispatch lag p99 is 49.00 ms") }) {
		t.Errorf("with --metric-percentiles 50: warnings %q lack the p99 dispatch lag warning", s.Warnings)
	}
	// With --request-rate inf every request arrives at the start, so vLLM
	// reports client_queue_time but omits e2el_including_client_queue.
	pInf := p
	pInf.RateFinite = false
	names = names[:0]
	for _, st := range mustSummarize(t, recs, pInf).Metrics {
		names = append(names, st.Metric)
	}
	if diff := cmp.Diff([]string{E2EL, ClientQueueTime}, names); diff != "" {
		t.Errorf("metrics with an infinite rate (-want +got):\n%s", diff)
	}
	// Without --max-concurrency the queue metrics cannot be reported.
	p.MaxConcurrency = 0
	s = mustSummarize(t, recs, p)
	if len(s.Metrics) != 1 || len(s.Warnings) < 2 {
		t.Errorf("metrics %v warnings %q; want e2el only and two warnings", s.Metrics, s.Warnings)
	}
	// ... nor our queue figure: without a cap nothing queues, and the wait
	// between dispatch and send is the client's own lag.
	if s.Extra.ClientQueue != nil {
		t.Errorf("client queue reported without a concurrency cap: %+v", s.Extra.ClientQueue)
	}
	if lag := s.Extra.DispatchLag; lag == nil || math.Abs(lag.Mean-(500+50)/3.0) > 1e-9 {
		t.Errorf("dispatch lag without a cap = %+v, want mean (500+50+0)/3 ms", lag)
	}
	// Without intended times there are no intended-time figures.
	s = mustSummarize(t, []record.Record{ok(0, 0.1, nil, 0.1, intp(1), "")}, Params{Duration: 1})
	if s.Extra != (Extra{}) {
		t.Errorf("extra = %+v, want empty", s.Extra)
	}
}

func TestStreamSpecifics(t *testing.T) {
	t.Parallel()
	mk := func(finish string, usage bool, n *int) record.Record {
		r := ok(0, 0.1, nil, 0.1, n, "w")
		r.FinishReason, r.UsageSeen = finish, usage
		return r
	}
	recs := []record.Record{
		mk("length", true, intp(3)),
		mk("length", true, intp(3)),
		mk("stop", true, intp(3)),
		mk("eos_token", false, nil),
		mk("", false, nil),
		mk("tool_calls", true, intp(2)),
		{Success: false, ErrorClass: record.ErrTimeout},
		{Success: false, ErrorClass: record.ErrHTTP5xx},
		{Success: false, ErrorClass: record.ErrHTTP5xx},
		{Success: false},
	}
	s := mustSummarize(t, recs, Params{Duration: 1, Counter: Whitespace{}})
	want := StreamSpecifics{
		Truncated: 2, StoppedEOS: 2, FinishUnknown: 2, WithoutUsage: 2,
		Sources: []Count{{"server-usage", 4}, {"tokenizer", 2}},
		Errors:  []Count{{"http_5xx", 2}, {"timeout", 1}, {"unclassified", 1}},
	}
	if diff := cmp.Diff(want, s.Stream); diff != "" {
		t.Errorf("stream specifics (-want +got):\n%s", diff)
	}
}

func TestParamsValidation(t *testing.T) {
	t.Parallel()
	rec := []record.Record{ok(0, 0.1, nil, 0.1, intp(1), "")}
	tests := []struct {
		name string
		p    Params
		want string
	}{
		{"zero duration", Params{}, "benchmark duration must be a positive number"},
		{"unknown metric", Params{Duration: 1, PercentileMetrics: []string{"ttft", "p99"}}, `unknown percentile metric "p99"`},
		{"percentile over 100", Params{Duration: 1, Percentiles: []float64{100.5}}, "metric percentile 100.5 is outside [0, 100]"},
		{"NaN percentile", Params{Duration: 1, Percentiles: []float64{math.NaN()}}, "outside [0, 100]"},
		{"goodput key", Params{Duration: 1, Goodput: map[string]float64{"itl": 5}}, `invalid goodput metric "itl"`},
		{"goodput negative", Params{Duration: 1, Goodput: map[string]float64{"e2el": -5}}, "invalid goodput value -5 for e2el"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Summarize(rec, tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	bad := []record.Record{ok(0, 0.1, nil, -0.1, intp(1), "")}
	if _, err := Summarize(bad, Params{Duration: 1}); err == nil || !strings.Contains(err.Error(), "record 0 (index 0): latency is negative (-0.1)") {
		t.Errorf("negative latency: err = %v", err)
	}
}

func TestParseHelpers(t *testing.T) {
	t.Parallel()
	if got, err := ParsePercentiles("50, 99.9,100"); err != nil || !slices.Equal(got, []float64{50, 99.9, 100}) {
		t.Errorf("ParsePercentiles = %v, %v", got, err)
	}
	if g, err := ParseGoodput([]string{"ttft:200", "tpot:30.5"}); err != nil || g["ttft"] != 200 || g["tpot"] != 30.5 {
		t.Errorf("ParseGoodput = %v, %v", g, err)
	}
	if _, err := ParseGoodput([]string{"ttft:1:2"}); err == nil {
		t.Error("ttft:1:2 accepted")
	}
	rp := record.ConformanceDefaults()
	rp.DurationS = 2
	rp.MaxConcurrency = intp(4)
	rp.RequestRate = 8
	p, err := ParamsFrom(&rp, nil)
	if err != nil || p.MaxConcurrency != 4 || !p.RateFinite || !slices.Equal(p.PercentileMetrics, []string{"ttft", "tpot", "itl"}) || !slices.Equal(p.Percentiles, []float64{99}) {
		t.Errorf("ParamsFrom = %+v, %v", p, err)
	}
}
