package metrics

import (
	"slices"

	"github.com/llmbench/llmbench/internal/record"
)

// PerUserPercentiles are the low percentiles of per-user TPS that every
// run reports: the slowest users are the ones who complain.
var PerUserPercentiles = []float64{1, 5, 10}

// PerUser is the per-user view of a run (docs/capacity.md, "Per-user
// TPS" and "Token goodput"): how fast each user saw tokens stream once
// the first one arrived, and how many output tokens per second were
// useful. It sits beside vLLM's figures and never changes them.
type PerUser struct {
	// N is the number of requests per-user TPS covers: successful ones
	// with more than one output token and a decode time (E2EL - TTFT)
	// above zero. A one-token output has no decode phase to time, so it
	// is excluded (as vLLM excludes it from TPOT).
	N int
	// MeanTPS, MedianTPS are the mean and median of per-user TPS in
	// tokens per second; 0 when N is 0.
	MeanTPS, MedianTPS float64
	// LowTPS are per-user TPS at PerUserPercentiles (p1, p5, p10), NumPy
	// linear interpolation; zeros when N is 0.
	LowTPS []float64
	// SystemTPS is the run's output tokens per second over all users:
	// vLLM's output_throughput, repeated here so the two views sit side
	// by side.
	SystemTPS float64
	// GoodputTokens counts the output tokens of requests that succeeded,
	// finished naturally (finish reason stop, eos_token or stop_sequence;
	// "length", none and any other reason are excluded) and met every
	// --goodput SLO when SLOs were given.
	GoodputTokens int
	// GoodputRequests counts those requests.
	GoodputRequests int
	// TokenGoodput = GoodputTokens / duration, in tokens per second.
	TokenGoodput float64
}

// naturalStop reports whether a finish reason means the model ended its
// answer itself (the same reasons StreamSpecifics.StoppedEOS counts).
func naturalStop(reason string) bool {
	switch reason {
	case "stop", "eos_token", "stop_sequence":
		return true
	}
	return false
}

// perUser computes the per-user view of recs. outLens are the Summary's
// output lengths (vLLM's output_lens, 0 for failures), in record order.
//
// Per-user TPS of one request = output tokens / (E2EL - TTFT): the rate
// at which that user saw tokens after the first. Example: 101 tokens,
// TTFT 0.2 s, E2EL 2.2 s gives 101 / 2.0 = 50.5 tok/s. Against a server
// with a fixed ITL of 20 ms this tends to 1/ITL = 50 tok/s as outputs
// grow (it is n/(n-1) times 1/TPOT).
func perUser(recs []record.Record, outLens []int, p *Params) PerUser {
	pu := PerUser{LowTPS: make([]float64, len(PerUserPercentiles))}
	tps := make([]float64, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		n := outLens[i]
		if v, ok := PerUserTPS(r.Latency, r.TTFT, n); ok {
			tps = append(tps, v)
		}
		tpot, _ := RequestTPOT(r.Latency, r.TTFT, n)
		if naturalStop(r.FinishReason) && p.Goodput.Meets(r.TTFT, tpot, r.Latency) {
			pu.GoodputTokens += n
			pu.GoodputRequests++
		}
	}
	pu.TokenGoodput = float64(pu.GoodputTokens) / p.Duration
	pu.N = len(tps)
	if pu.N == 0 {
		return pu
	}
	pu.MeanTPS = pairwiseSum(tps) / float64(pu.N)
	slices.Sort(tps)
	if n := pu.N; n%2 == 1 {
		pu.MedianTPS = tps[n/2]
	} else {
		pu.MedianTPS = (tps[n/2-1] + tps[n/2]) / 2 // np.median
	}
	for i, q := range PerUserPercentiles {
		pu.LowTPS[i] = Percentile(tps, q)
	}
	return pu
}
