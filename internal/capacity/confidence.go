package capacity

import (
	"strconv"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// Step SLA verdicts (docs/capacity.md, "Pass, fail or unresolved"): a
// step passes or fails the SLA only when the interval its figure was
// judged on lies wholly on one side of the limit; else it is unresolved.

// Verdicts of a step or a term.
const (
	VerdictPass       = "pass"
	VerdictFail       = "fail"
	VerdictUnresolved = "unresolved"
)

// What a term was judged on (TermResult.JudgedOn).
const (
	// JudgedRuns: the Student-t interval of the term's figure over the
	// step's K >= 2 runs.
	JudgedRuns = "runs"
	// JudgedShare: one run, a percentile term: the Wilson interval of the
	// share of requests within the limit, against the percentile's share.
	JudgedShare = "share"
	// JudgedMean: one run, a mean term: the Student-t interval of the mean.
	JudgedMean = "mean"
	// JudgedValue: the point value, with no interval: error_rate (the
	// --max-error-rate gate fails a step outright), throughputs and
	// pooled ITL of one run, and figures whose interval was not saved.
	JudgedValue = "value"
)

// Share counts a run's successful requests within one SLA term's limit:
// Met of N. The sweep driver counts them from the records (ShareOf); a
// row without them is judged on the value.
type Share struct {
	Met int `json:"met"`
	N   int `json:"n"`
}

// ShareOf counts the values (one per successful request, in the term's
// unit) that meet t's limit.
func ShareOf(t Term, values []float64) Share {
	s := Share{N: len(values)}
	for _, v := range values {
		if t.Pass(v) {
			s.Met++
		}
	}
	return s
}

// ShareTerm reports whether t is judged on the share of requests (one
// run): a percentile or median of TTFT, TPOT or E2EL, whose values are
// one per request; the target share is the percentile's (0.99 for p99).
// ITL is pooled over token gaps, correlated within a request, so it is
// not.
func ShareTerm(t Term) (target float64, ok bool) {
	m := latencyKey.FindStringSubmatch(t.Key)
	if m == nil || m[4] == "itl" {
		return 0, false
	}
	switch {
	case m[1] == "median":
		return 0.5, true
	case m[2] != "":
		p, err := strconv.ParseFloat(m[2], 64)
		if err != nil || p <= 0 || p >= 100 {
			return 0, false
		}
		return p / 100, true
	}
	return 0, false
}

// judgeInterval is the verdict of a term on an interval of its figure:
// pass when the whole interval meets the limit, fail when none of it
// does, else unresolved.
func judgeInterval(t Term, iv stats.Interval) string {
	switch {
	case t.Pass(iv.Low) && t.Pass(iv.High):
		return VerdictPass
	case !t.Pass(iv.Low) && !t.Pass(iv.High):
		return VerdictFail
	}
	return VerdictUnresolved
}

// judgeShare is the verdict on a share interval against the target:
// pass when its low end is above the target, fail when its high end is
// below, else unresolved. Vectors at 0.95: 95/100 → [0.888, 0.978]
// against 0.95 unresolved; 100/100 → [0.963, 1.0] pass.
func judgeShare(iv stats.Interval, target float64) string {
	switch {
	case iv.Low > target:
		return VerdictPass
	case iv.High < target:
		return VerdictFail
	}
	return VerdictUnresolved
}

// judgeTerm sets tr's verdict, the interval and what it was judged on,
// from r's runs, shares or mean intervals; tr.Pass (the point outcome)
// must be set.
func judgeTerm(r *Row, tr *TermResult) {
	tr.JudgedOn, tr.Interval, tr.TargetShare = JudgedValue, nil, nil
	tr.Verdict = VerdictFail
	if tr.Pass {
		tr.Verdict = VerdictPass
	}
	if tr.Actual == nil || tr.Key == "error_rate" {
		return // not reported, or the error gate: judged outright
	}
	if rs, ok := r.RunStats[tr.Key]; ok && rs.N >= 2 {
		iv := stats.Interval{Low: rs.Low, High: rs.High}
		tr.JudgedOn, tr.Interval, tr.Verdict = JudgedRuns, &iv, judgeInterval(tr.Term, iv)
		return
	}
	if r.Runs > 1 {
		return
	}
	if target, ok := ShareTerm(tr.Term); ok {
		sh, found := r.Shares[tr.Key]
		if lo, hi, ok := stats.Wilson(sh.Met, sh.N, stats.DefaultConfidence); found && ok {
			iv := stats.Interval{Low: lo, High: hi}
			tr.JudgedOn, tr.Interval, tr.TargetShare, tr.Verdict = JudgedShare, &iv, &target, judgeShare(iv, target)
		}
		return
	}
	if iv, ok := r.MeanCI[tr.Key]; ok {
		tr.JudgedOn, tr.Interval, tr.Verdict = JudgedMean, &iv, judgeInterval(tr.Term, iv)
	}
}

// stepVerdict combines the terms' verdicts: fail when any term fails,
// pass when every term passes, else unresolved.
func stepVerdict(terms []TermResult) string {
	v := VerdictPass
	for _, t := range terms {
		switch t.Verdict {
		case VerdictFail:
			return VerdictFail
		case VerdictUnresolved:
			v = VerdictUnresolved
		}
	}
	return v
}

// kneeInterval brackets the knee with inference-perf's plateau test
// (stats.Plateau): load_high is the first counted load after which the
// throughput did not grow significantly, load_low the load before it
// (the last that still grew into it; itself when it is the first). The
// standard errors are the runs' (RunStats); one run has none. ok is
// false when no pair of steps plateaus.
func kneeInterval(c []*Row) (low, high float64, ok bool) {
	se := func(r *Row) float64 {
		if rs, ok := r.RunStats[metrics.KeyOutputThroughput]; ok && rs.N >= 2 {
			return rs.SE
		}
		return 0
	}
	for i := 0; i+1 < len(c); i++ {
		a, b := c[i], c[i+1]
		if stats.Plateau(a.OutputThroughput, se(a), b.OutputThroughput, se(b)) {
			low = a.Load
			if i > 0 {
				low = c[i-1].Load
			}
			return low, a.Load, true
		}
	}
	return 0, 0, false
}
