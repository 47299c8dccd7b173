package servermetrics

import (
	"fmt"
	"strconv"
	"strings"
)

// Causes of a sweep's knee, as the sweep file's saturation.cause spells them.
const (
	// CauseBatchLimit: the running batch plateaus at its maximum while
	// the waiting queue grows (raise --max-num-seqs or add replicas).
	CauseBatchLimit = "batch_limit"
	// CauseKVCache: KV-cache usage reached 0.9 or requests were preempted
	// at the knee (more GPU memory, shorter contexts, more replicas).
	CauseKVCache = "kv_cache"
	// CauseCompute: neither; the batch still grows but each step gets
	// slower (more replicas or a faster GPU).
	CauseCompute = "compute"
	// CauseUnknown: no server metrics at the knee.
	CauseUnknown = "unknown"
)

// KVFullUsage is the KV-cache usage from which the cache counts as the
// limit: vLLM admits a request only with blocks to spare, so usage rarely
// reaches 1 even when the cache is what holds the batch back.
const KVFullUsage = 0.9

// StepSummary is one sweep step as Cause reads it.
type StepSummary struct {
	// Load is the step's load (users, concurrency or request rate) and
	// Unit how to say it ("users", "concurrent requests", "req/s").
	Load float64
	Unit string
	// Knee marks the step where the sweep saturates; when no step is
	// marked the last one is the knee.
	Knee bool
	// Server is the step's server summary; nil when none was read.
	Server *Summary
	// MeanTPOTMs is the client's mean TPOT (or ITL) at the step, for
	// "each step gets slower"; 0 when unknown.
	MeanTPOTMs float64
}

func (s StepSummary) load() string {
	u := s.Unit
	if u == "" {
		u = "users"
	}
	return strconv.FormatFloat(s.Load, 'g', 6, 64) + " " + u
}

// Cause names why a sweep saturates at its knee, with one sentence
// giving the numbers. steps are in increasing load.
//
// The rules, in order, at the knee step:
//
//  1. no server summary with running requests or KV usage: unknown;
//  2. KV usage ≥ KVFullUsage or preemptions > 0: kv_cache (checked first:
//     a full KV cache also stops the batch growing, below its cap);
//  3. the running batch's maximum is the largest of the sweep (within one
//     request), no later step runs more than one request beyond it, and
//     requests wait (waiting mean above the previous step's, or any
//     waiting at the first step; or, at a knee that just fills the batch,
//     a later step's waiting mean above the knee's): batch_limit. The running mean is not
//     used: a short step's mean is dragged down by the scrapes before its
//     first and after its last request;
//  4. otherwise: compute.
func Cause(steps []StepSummary) (cause, detail string) {
	if len(steps) == 0 {
		return CauseUnknown, "no sweep steps to read server metrics from"
	}
	k := len(steps) - 1
	for i, s := range steps {
		if s.Knee {
			k = i
			break
		}
	}
	knee := steps[k]
	sv := knee.Server
	if sv == nil || sv.RunningMax == nil && sv.KVCacheUsageMax == nil {
		return CauseUnknown, fmt.Sprintf("no server metrics were read at the knee (%s): pass --server-metrics to learn why it saturates", knee.load())
	}
	kv, pre := val(sv.KVCacheUsageMax), val(sv.Preemptions)
	if kv >= KVFullUsage || pre > 0 {
		return CauseKVCache, fmt.Sprintf("the KV cache is full at %s (usage up to %s, %s preemptions): more GPU memory, a shorter context or fewer concurrent requests per replica, or more replicas",
			knee.load(), fmtF(kv), fmtF(pre))
	}
	if sv.RunningMax != nil {
		run := *sv.RunningMax
		top := 0.0
		for _, s := range steps {
			if s.Server != nil {
				top = max(top, val(s.Server.RunningMax))
			}
		}
		later := true
		for _, s := range steps[k+1:] {
			if s.Server != nil && val(s.Server.RunningMax) > run+1 {
				later = false
			}
		}
		waits := val(sv.WaitingMax) > 0
		if k > 0 && steps[k-1].Server != nil {
			waits = waits && val(sv.WaitingMean) > val(steps[k-1].Server.WaitingMean)
		}
		// The throughput knee is often the step that just fills the
		// batch: nobody waits there yet, and the queue grows at the
		// steps after it while the batch stays at the cap.
		waitMax := val(sv.WaitingMax)
		if !waits {
			for _, s := range steps[k+1:] {
				if s.Server != nil && val(s.Server.WaitingMax) > 0 && val(s.Server.WaitingMean) > val(sv.WaitingMean) {
					waits = true
					waitMax = max(waitMax, val(s.Server.WaitingMax))
				}
			}
		}
		if run > 0 && run >= top-1 && later && waits {
			from := knee
			for _, s := range steps {
				if s.Server != nil && val(s.Server.RunningMax) >= run-1 && val(s.Server.WaitingMax) > 0 {
					from = s
					break
				}
			}
			return CauseBatchLimit, fmt.Sprintf("the batch is full at %s running requests from %s on (up to %s waiting): raise --max-num-seqs or add replicas",
				fmtF(run), from.load(), fmtF(waitMax))
		}
	}
	detail = fmt.Sprintf("neither the batch cap nor the KV cache binds at %s (running mean %s, KV usage up to %s, no preemptions)",
		knee.load(), fmtF(val(sv.RunningMean)), fmtF(kv))
	if k > 0 && steps[k-1].MeanTPOTMs > 0 && knee.MeanTPOTMs > 0 {
		detail += fmt.Sprintf(", but each step gets slower (mean TPOT %s → %s ms from %s)",
			fmtF(steps[k-1].MeanTPOTMs), fmtF(knee.MeanTPOTMs), steps[k-1].load())
	}
	return CauseCompute, detail + ": compute-bound; add replicas or a faster GPU"
}

// PrefixCacheWarning returns a sweep note when the server's prefix-cache
// hit rate rises across steps on a dataset without shared prefixes: later
// steps then reuse prompts that earlier steps left in the cache, and
// their TTFT is flattered (vLLM users have seen 49x lower TTFT at later
// points of such loops). Rising means: the last step's hit rate is at
// least 10 points above the first step's. sharedPrefixes (a dataset
// built on common prefixes, where hits are the point) and fewer than two
// steps with a hit rate give "".
func PrefixCacheWarning(steps []StepSummary, sharedPrefixes bool) string {
	if sharedPrefixes {
		return ""
	}
	var first, last *StepSummary
	for i := range steps {
		if s := steps[i].Server; s != nil && s.PrefixCacheHitRate != nil {
			if first == nil {
				first = &steps[i]
			}
			last = &steps[i]
		}
	}
	if first == nil || first == last {
		return ""
	}
	a, b := *first.Server.PrefixCacheHitRate, *last.Server.PrefixCacheHitRate
	if b-a < 0.10 {
		return ""
	}
	return fmt.Sprintf("the server's prefix-cache hit rate rose from %.0f %% at %s to %.0f %% at %s on a dataset without shared prefixes: later steps reuse earlier steps' prompts, which flatters their TTFT; use --reset-prefix-cache",
		a*100, first.load(), b*100, last.load())
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// fmtF writes a figure with up to three decimals and no trailing zeros.
func fmtF(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
