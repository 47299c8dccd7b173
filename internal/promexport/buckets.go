package promexport

import "math"

// The classic histogram buckets. LLM latencies span five orders of
// magnitude — an ITL of 0.3 ms between two chunks that arrived in one read,
// a TTFT of 40 s behind a full queue — so every histogram uses one
// logarithmic series with ten bounds per decade:
//
//	1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8  × 10^k seconds
//
// Neighbouring bounds differ by at most 33 % (and by 25 % on average), so
// histogram_quantile(0.99, ...) — which interpolates linearly inside the
// bucket that holds the 99th percentile — lands in the same bucket as the
// true p99 and is off by less than that bucket's width. Worked example: a
// true p99 TTFT of 430 ms lies in (400 ms, 500 ms]; Prometheus reports a
// value in that interval, at most 70 ms (16 %) away.
//
// Ranges per metric (values above the last bound fall into +Inf, where
// histogram_quantile returns the last finite bound):
//
//	TTFT          1 ms .. 60 s    (49 buckets)
//	TPOT, ITL   100 µs .. 10 s    (51 buckets)
//	E2EL         10 ms .. 600 s   (49 buckets)
//	client queue 100 µs .. 600 s  (69 buckets)
//
// Each histogram is also a native histogram (bucket factor 1.1, i.e. about
// 10 % resolution at any scale) for Prometheus servers that scrape them
// (Prometheus ≥ 2.40 with --enable-feature=native-histograms, protobuf
// scrapes); the text and OpenMetrics formats carry the classic buckets.
var (
	// TTFTBuckets are the classic bucket upper bounds of llmbench_ttft_seconds.
	TTFTBuckets = logBuckets(1e-3, 60)
	// TokenBuckets are the bounds of llmbench_tpot_seconds and
	// llmbench_itl_seconds.
	TokenBuckets = logBuckets(1e-4, 10)
	// E2ELBuckets are the bounds of llmbench_e2el_seconds.
	E2ELBuckets = logBuckets(1e-2, 600)
	// QueueBuckets are the bounds of llmbench_client_queue_seconds.
	QueueBuckets = logBuckets(1e-4, 600)
)

// mantissas are the bounds of one decade (see the comment above).
var mantissas = []float64{1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8}

// logBuckets returns the series' bounds in [lo, hi], ascending. Each bound
// is rounded to 12 significant digits so that 3e-3 prints as 0.003, not
// 0.0030000000000000005, in the le label.
func logBuckets(lo, hi float64) []float64 {
	var out []float64
	for k := math.Floor(math.Log10(lo)) - 1; ; k++ {
		p := math.Pow(10, k)
		for _, m := range mantissas {
			v := roundSig(m * p)
			if v > hi*(1+1e-9) {
				return out
			}
			if v >= lo*(1-1e-9) {
				out = append(out, v)
			}
		}
	}
}

func roundSig(v float64) float64 {
	if v == 0 {
		return 0
	}
	scale := math.Pow(10, 11-math.Floor(math.Log10(v)))
	return math.Round(v*scale) / scale
}
