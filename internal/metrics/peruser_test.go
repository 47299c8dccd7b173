package metrics

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/record"
)

// fixedITL is a successful request of n tokens, one per chunk, from a
// server with a fixed TTFT and ITL, ended with reason.
func fixedITL(n int, ttft, itl float64, reason string) record.Record {
	gaps := make([]float64, n-1)
	lat := ttft
	for i := range gaps {
		gaps[i] = itl
		lat += itl
	}
	r := ok(0, ttft, gaps, lat, intp(n), "")
	r.FinishReason = reason
	return r
}

// TestPerUserTPSFixedITL: against a fixed-ITL server per-user TPS is
// n/((n-1)·ITL), close to 1/ITL for long outputs.
func TestPerUserTPSFixedITL(t *testing.T) {
	t.Parallel()
	recs := []record.Record{fixedITL(101, 0.2, 0.02, "stop"), fixedITL(101, 0.5, 0.02, "stop")}
	pu := mustSummarize(t, recs, Params{Duration: 4}).PerUser
	want := 101 / 2.0
	if pu.N != 2 || math.Abs(pu.MeanTPS-want) > 1e-9 || math.Abs(pu.MedianTPS-want) > 1e-9 {
		t.Fatalf("per-user %+v, want N 2 and %v tok/s", pu, want)
	}
	if math.Abs(pu.MeanTPS-1/0.02) > 0.01*50 {
		t.Errorf("mean %v tok/s is not within 1%% of 1/ITL = 50", pu.MeanTPS)
	}
	if pu.SystemTPS != 202.0/4 || pu.TokenGoodput != 202.0/4 || pu.GoodputTokens != 202 {
		t.Errorf("system %v, token goodput %v (%d tokens), want 50.5, 50.5, 202", pu.SystemTPS, pu.TokenGoodput, pu.GoodputTokens)
	}
}

// TestPerUserExclusions: one-token outputs and failures have no per-user
// TPS; token goodput counts only natural stops that met the SLOs.
func TestPerUserExclusions(t *testing.T) {
	t.Parallel()
	one := ok(0, 0.1, nil, 0.1, intp(1), "")
	one.FinishReason = "stop"
	slow := fixedITL(11, 0.9, 0.01, "stop") // TTFT 900 ms: misses a 500 ms SLO
	recs := []record.Record{
		fixedITL(11, 0.1, 0.01, "stop"),     // 11 / 0.1 = 110 tok/s, good
		fixedITL(6, 0.1, 0.01, "length"),    // 6 / 0.05 = 120 tok/s, truncated: not goodput
		fixedITL(3, 0.1, 0.05, ""),          // 3 / 0.1 = 30 tok/s, unknown reason: not goodput
		fixedITL(5, 0.1, 0.01, "eos_token"), // 5 / 0.04 = 125 tok/s, TGI's natural stop: good
		one,                                 // 1 token: no TPS, but a good stop (1 token)
		{Success: false, Error: "x", FinishReason: "stop"}, // failed: nothing
		slow, // 11 / 0.1 = 110 tok/s
	}
	tests := []struct {
		name          string
		slo           map[string]float64
		tokens, nGood int
	}{
		{"no SLOs: every natural stop", nil, 11 + 5 + 1 + 11, 4},
		{"ttft SLO drops the slow one", map[string]float64{"ttft": 500}, 11 + 5 + 1, 3},
		{"ttft SLO 100 ms, equality is good", map[string]float64{"ttft": 100}, 11 + 5 + 1, 3},
		{"tpot SLO 10.5 ms keeps all natural stops", map[string]float64{"tpot": 10.5}, 11 + 5 + 1 + 11, 4},
		{"tpot SLO 9 ms: only the 1-token stop (TPOT 0)", map[string]float64{"tpot": 9}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pu := mustSummarize(t, recs, Params{Duration: 2, Goodput: tt.slo}).PerUser
			if pu.GoodputTokens != tt.tokens || pu.GoodputRequests != tt.nGood || pu.TokenGoodput != float64(tt.tokens)/2 {
				t.Errorf("token goodput %v (%d tokens, %d requests), want %d tokens, %d requests", pu.TokenGoodput, pu.GoodputTokens, pu.GoodputRequests, tt.tokens, tt.nGood)
			}
			if pu.N != 5 {
				t.Errorf("per-user TPS over %d requests, want 5 (one-token and failed excluded)", pu.N)
			}
		})
	}
	pu := mustSummarize(t, recs, Params{Duration: 2}).PerUser
	// Sorted: 30, 110, 110, 120, 125. NumPy: p1 = 30 + 80·0.04 = 33.2,
	// p5 = 30 + 80·0.2 = 46, p10 = 30 + 80·0.4 = 62; median 110.
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	if diff := cmp.Diff([]float64{33.2, 46, 62}, pu.LowTPS, approx); diff != "" {
		t.Errorf("p1/p5/p10 (-want +got):\n%s", diff)
	}
	if math.Abs(pu.MedianTPS-110) > 1e-9 || math.Abs(pu.MeanTPS-99) > 1e-9 {
		t.Errorf("median %v, mean %v, want 110 and 99", pu.MedianTPS, pu.MeanTPS)
	}
}

// TestPerUserEmpty: no successful multi-token request gives zeros, not NaN.
func TestPerUserEmpty(t *testing.T) {
	t.Parallel()
	pu := mustSummarize(t, []record.Record{{Success: false, Error: "x"}}, Params{Duration: 1}).PerUser
	if pu.N != 0 || pu.MeanTPS != 0 || pu.MedianTPS != 0 || !cmp.Equal(pu.LowTPS, []float64{0, 0, 0}) || pu.TokenGoodput != 0 {
		t.Errorf("per-user %+v, want zeros", pu)
	}
}
