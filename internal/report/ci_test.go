package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/stats"
)

// ciRecords are n successful requests with TTFTs 1..n ms in a shuffled
// order, 3 output tokens and gaps of 10 ms, so every order statistic is
// known: the k-th smallest TTFT (0-based) is k+1 ms.
func ciRecords(n int) []record.Record {
	three := 3
	recs := make([]record.Record, n)
	for i := range recs {
		k := (i*7919)%n + 1 // a permutation of 1..n (7919 is prime, n is not its multiple)
		ttft := float64(k) / 1000
		recs[i] = record.Record{Index: i, Success: true, PromptLen: 10, OutputTokens: &three,
			TTFT: ttft, ITL: []float64{0.01, 0.01}, Latency: ttft + 0.02, StartTime: float64(i) * 0.01,
			GeneratedText: "a b c", FinishReason: "stop", UsageSeen: true}
	}
	return recs
}

// TestConfidenceSection is the table's section, byte for byte: 100
// requests (no p99 interval: the footnote says it needs 368) and 400.
func TestConfidenceSection(t *testing.T) {
	t.Parallel()
	for _, n := range []int{100, 400} {
		p := record.ConformanceDefaults()
		p.DurationS = 10
		p.MetricPercentiles = "50,90,99"
		p.PercentileMetrics = "ttft,tpot,itl,e2el"
		s := summaryFor(t, &p, ciRecords(n))
		var buf bytes.Buffer
		if err := writeLines(&buf, ConfidenceLines(s)); err != nil {
			t.Fatal(err)
		}
		name := "ci/section-100.txt"
		if n == 400 {
			name = "ci/section-400.txt"
		}
		golden(t, name, buf.Bytes())
	}
}

// TestResultCI reads llmbench.ci back from the result JSON: p99 is the
// pair of order statistics at stats.PercentileRanks' ranks with 400
// requests, null with a note with 100; ITL is null with its reason.
func TestResultCI(t *testing.T) {
	t.Parallel()
	type interval struct{ Low, High float64 }
	type metricCI struct {
		N            int
		Mean, Median *interval
		P99          *interval `json:"p99"`
	}
	for _, n := range []int{100, 400} {
		p := record.ConformanceDefaults()
		p.DurationS = 10
		p.Date = "20260101-000000"
		p.PercentileMetrics = "ttft,tpot,itl,e2el"
		recs := ciRecords(n)
		s := summaryFor(t, &p, recs)
		var buf bytes.Buffer
		if err := WriteResult(&buf, s, &p, recs, ResultOptions{Detailed: true, Extras: true}); err != nil {
			t.Fatal(err)
		}
		var res struct {
			TTFTs    []float64 `json:"ttfts"`
			LLMBench struct {
				CI struct {
					Confidence float64
					TTFT       *metricCI       `json:"ttft_ms"`
					ITL        json.RawMessage `json:"itl_ms"`
					Notes      []string
				} `json:"ci"`
			} `json:"llmbench"`
		}
		if err := json.Unmarshal(buf.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		ci := res.LLMBench.CI
		if ci.Confidence != 0.95 || ci.TTFT == nil || ci.TTFT.N != n || string(ci.ITL) != "null" {
			t.Fatalf("n=%d: ci = %+v", n, ci)
		}
		// The second route: the saved TTFTs, sorted, at the binomial ranks.
		sorted := slices.Sorted(slices.Values(res.TTFTs))
		lo, hi, ok := stats.PercentileRanks(len(sorted), 0.99, 0.95)
		switch {
		case n == 400 && !ok:
			t.Fatal("400 values: no p99 ranks")
		case n == 400:
			want := interval{sorted[lo] * 1000, sorted[hi] * 1000}
			if ci.TTFT.P99 == nil || *ci.TTFT.P99 != want {
				t.Errorf("p99 = %v, want %v (ranks %d, %d)", ci.TTFT.P99, want, lo, hi)
			}
		case ci.TTFT.P99 != nil:
			t.Errorf("100 values: p99 = %v, want null", ci.TTFT.P99)
		case !slices.Contains(ci.Notes, "ttft_ms p99: needs at least 368 values, has 100"):
			t.Errorf("notes %q do not say what p99 needs", ci.Notes)
		}
		if !slices.ContainsFunc(ci.Notes, func(s string) bool { return strings.HasPrefix(s, "itl_ms: pooled ITL has no per-run interval") }) {
			t.Errorf("notes %q do not say why ITL has none", ci.Notes)
		}
	}
}

// TestConformanceKeepsCIOut: the vLLM-compatible table and result
// (without extras) carry no interval.
func TestConformanceKeepsCIOut(t *testing.T) {
	t.Parallel()
	p := record.ConformanceDefaults()
	p.DurationS = 10
	recs := ciRecords(400)
	s := summaryFor(t, &p, recs)
	var buf bytes.Buffer
	if err := WriteResult(&buf, s, &p, recs, ResultOptions{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(`"ci"`)) {
		t.Error("result without extras has a ci key")
	}
	if slices.ContainsFunc(TableLines(s, &p), func(l string) bool { return strings.Contains(l, "Confidence") }) {
		t.Error("vLLM's table has a confidence line")
	}
}
