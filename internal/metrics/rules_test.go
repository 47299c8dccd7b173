package metrics

import (
	"math"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestPerRequestRates pins RequestTPOT and PerUserTPS, which share their
// one-token guard: a one-token output has no decode phase.
func TestPerRequestRates(t *testing.T) {
	tpot, tps := RequestTPOT, PerUserTPS
	cases := []struct {
		name       string
		fn         func(e2el, ttft float64, n int) (float64, bool)
		e2el, ttft float64
		n          int
		want       float64
		ok         bool
	}{
		{"tpot", tpot, 2.2, 0.2, 101, 0.02, true},
		{"tpot two tokens", tpot, 0.5, 0.1, 2, 0.4, true},
		{"tpot one token", tpot, 0.3, 0.3, 1, 0, false},
		{"tpot no tokens", tpot, 0.3, 0.1, 0, 0, false},
		{"tps", tps, 2.2, 0.2, 101, 50.5, true},
		{"tps no decode time", tps, 0.3, 0.3, 5, 0, false},
		{"tps negative decode time", tps, 0.2, 0.3, 5, 0, false},
		{"tps one token", tps, 0.5, 0.1, 1, 0, false},
		{"tps NaN", tps, math.NaN(), 0.1, 5, 0, false},
	}
	for _, c := range cases {
		got, ok := c.fn(c.e2el, c.ttft, c.n)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s(%v, %v, %d) = %v, %v; want %v, %v", c.name, c.e2el, c.ttft, c.n, got, ok, c.want, c.ok)
		}
	}
}

func TestSLOsMeets(t *testing.T) {
	cases := []struct {
		name            string
		slo             SLOs
		ttft, tpot, e2e float64
		want            bool
	}{
		{"none", nil, 9, 9, 9, true},
		{"equality meets", SLOs{TTFT: 250}, 0.25, 0, 1, true},
		{"over", SLOs{TTFT: 250, E2EL: 1000}, 0.1, 0, 1.5, false},
		{"tpot 0 of one token", SLOs{TPOT: 0}, 0.3, 0, 0.3, true},
		{"unknown key ignored", SLOs{ITL: 0}, 1, 1, 1, true},
		{"NaN misses", SLOs{E2EL: 1000}, 0.1, 0, math.NaN(), false},
	}
	for _, c := range cases {
		if got := c.slo.Meets(c.ttft, c.tpot, c.e2e); got != c.want {
			t.Errorf("%s: Meets = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOutputLen(t *testing.T) {
	five, zero := 5, 0
	cases := []struct {
		name        string
		r           record.Record
		noTokenizer bool
		c           TokenCounter
		n           int
		src         string
		guessed     bool
	}{
		{"usage", record.Record{OutputTokens: &five, GeneratedText: "a b"}, false, Whitespace{}, 5, record.SourceServerUsage, false},
		{"usage 0 counts as absent", record.Record{OutputTokens: &zero, GeneratedText: "a b"}, false, Whitespace{}, 2, record.SourceTokenizer, false},
		{"no tokenizer", record.Record{GeneratedText: "a b", TokenizerCount: 7}, true, Whitespace{}, 1, record.SourceFallback1, false},
		{"saved count wins", record.Record{GeneratedText: "a b", TokenizerCount: 7}, false, Whitespace{}, 7, record.SourceTokenizer, false},
		{"saved 0 by source", record.Record{GeneratedText: "a b", OutputTokensSource: record.SourceTokenizer}, false, Whitespace{}, 0, record.SourceTokenizer, false},
		{"counter", record.Record{GeneratedText: "a b c"}, false, Whitespace{}, 3, record.SourceTokenizer, false},
		{"fallback-1 guessed", record.Record{GeneratedText: "a b c"}, false, nil, 1, record.SourceFallback1, true},
	}
	for _, c := range cases {
		n, src, guessed := OutputLen(&c.r, c.noTokenizer, c.c)
		if n != c.n || src != c.src || guessed != c.guessed {
			t.Errorf("%s: OutputLen = %d, %q, %v; want %d, %q, %v", c.name, n, src, guessed, c.n, c.src, c.guessed)
		}
	}
}

// TestPercentileNumPyBits pins NumPy's _lerp arithmetic (the one vLLM's
// percentiles and the conformance vectors use): for g >= 0.5 it computes
// b - (b-a)(1-g), which differs from a + (b-a)g in the last bit here.
// Values from Python: np.percentile([0.26, 1.99], 72) = 1.5055999999999998.
func TestPercentileNumPyBits(t *testing.T) {
	cases := []struct {
		sorted []float64
		p      float64
		want   float64
	}{
		{[]float64{0.26, 1.99}, 72, 1.5055999999999998}, // a+(b-a)g gives 1.5056
		{[]float64{1, 2, 3, 10}, 99, 9.79},
		{[]float64{1, 2, 3, 10}, 50, 2.5},
		{[]float64{4}, 99, 4},
		{[]float64{1, 2}, 0, 1},
		{[]float64{1, 2}, 100, 2},
	}
	for _, c := range cases {
		if got := Percentile(c.sorted, c.p); got != c.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.sorted, c.p, got, c.want)
		}
	}
}
