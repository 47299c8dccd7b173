package metrics

import (
	"math"

	"github.com/llmbench/llmbench/internal/record"
)

// The per-request rules below are vLLM's definitions, written once: every
// package that shows a per-request figure (promexport's live histograms,
// htmlreport's charts, ...) calls them, so a figure cannot drift from the
// one in the result JSON.

// RequestTPOT is one successful request's time per output token after the
// first, in seconds: (E2EL - TTFT) / (outputLen - 1), vLLM's tpot. ok is
// false, and tpot 0, for outputLen <= 1: vLLM leaves such requests out of
// the TPOT statistics but counts them with TPOT 0 for goodput
// (all_tpots). (The name TPOT is the metric key constant.)
func RequestTPOT(e2el, ttft float64, outputLen int) (tpot float64, ok bool) {
	if outputLen <= 1 {
		return 0, false
	}
	return (e2el - ttft) / float64(outputLen-1), true
}

// PerUserTPS is one successful request's decode speed as its user saw it,
// in tokens per second: outputLen / (E2EL - TTFT). ok is false for
// outputLen <= 1 (no decode phase to time) and for a decode time <= 0.
func PerUserTPS(e2el, ttft float64, outputLen int) (tps float64, ok bool) {
	decode := e2el - ttft
	if outputLen <= 1 || !(decode > 0) {
		return 0, false
	}
	return float64(outputLen) / decode, true
}

// SLOs are --goodput's limits in milliseconds, keyed TTFT, TPOT and E2EL;
// other keys are ignored. Empty means no SLO, which every request meets.
type SLOs map[string]float64

// Meets applies vLLM's goodput rule to one successful request, its values
// in seconds (tpot from RequestTPOT, 0 for a one-token output): every
// limit / 1000 >= its value. Equality meets; a NaN value does not (vLLM's
// `s >= r` is false for it).
func (s SLOs) Meets(ttft, tpot, e2el float64) bool {
	for k, limit := range s {
		var v float64
		switch k {
		case TTFT:
			v = ttft
		case TPOT:
			v = tpot
		case E2EL:
			v = e2el
		default:
			continue
		}
		if !(limit/1000 >= v) {
			return false
		}
	}
	return true
}

// OutputLen is vLLM's output length of one successful request: the
// server's usage count when non-zero, else (noTokenizer: 1) the count the
// run's tokenizer saved with the record, else c's count of the text, else
// 1. src names the source (record.Source*); guessed reports a fallback-1
// that a tokenizer would have replaced. c may be nil.
func OutputLen(r *record.Record, noTokenizer bool, c TokenCounter) (n int, src string, guessed bool) {
	if r.OutputTokens != nil && *r.OutputTokens != 0 {
		return *r.OutputTokens, record.SourceServerUsage, false
	}
	if noTokenizer {
		return 1, record.SourceFallback1, false
	}
	// A count saved with the record (by the run's own tokenizer) wins: it
	// is what the run reported, and recounting would cost as much again.
	// TokenizerCount 0 is a count only when the source says so.
	if r.OutputTokensSource == record.SourceTokenizer || (r.OutputTokensSource == "" && r.TokenizerCount > 0) {
		return r.TokenizerCount, record.SourceTokenizer, false
	}
	if c != nil {
		return c.CountTokens(r.GeneratedText), record.SourceTokenizer, false
	}
	return 1, record.SourceFallback1, true
}

// Percentile is NumPy's default ("linear") p-th percentile, p in [0, 100],
// of sorted (ascending, not empty), with NumPy's arithmetic to the last
// bit; see pctIndex and lerp.
func Percentile(sorted []float64, p float64) float64 {
	lo, hi, g := pctIndex(len(sorted), p)
	return lerp(sorted[lo], sorted[hi], g)
}

// pctIndex is the position of NumPy's linear percentile p in a sorted list
// of n > 0 values: h = (n-1)·p/100, lo = floor(h) clamped to [0, n-1],
// hi = min(lo+1, n-1), g = h - lo.
func pctIndex(n int, p float64) (lo, hi int, g float64) {
	h := float64(n-1) * (p / 100)
	lo = min(max(int(math.Floor(h)), 0), n-1)
	hi = min(lo+1, n-1)
	return lo, hi, h - float64(lo)
}

// lerp is NumPy's _lerp: a + (b-a)·g below g = 0.5 and b - (b-a)·(1-g)
// from it, which differs from the plain a + (b-a)·g in the last bits (e.g.
// n=4 sorted {1,2,3,10}, p=99: h=2.97, g=0.97, 10-(10-3)·0.03 = 9.79).
func lerp(a, b, g float64) float64 {
	d := b - a
	if g < 0.5 {
		return a + d*g
	}
	return b - d*(1-g)
}
