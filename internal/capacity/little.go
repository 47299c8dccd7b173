package capacity

import "fmt"

// The cause the Little's-law note gives. The check (docs/capacity.md
// "Little's law") sets the successes'
// throughput × mean E2EL against the slots the step kept; a failed
// request held its slot too — a timeout for up to --request-timeout —
// and neither figure counts it. A sweep whose steps timed out half their
// requests read "off by -90 %: requests were not kept in flight as
// configured", blaming a configuration that was fine.

// littleBlame is the cause the check's note gives for a ratio off by
// more than LittleTolerance that no failure explains.
const littleBlame = "requests were not kept in flight as configured, or the step was too short"

// littleFailedShare is the failed share of a step's requests from which
// its failures alone account for a low ratio: the check's own tolerance
// (a share f of requests failing as slowly as the rest succeed leaves
// the successes 1 - f of the slots).
const littleFailedShare = LittleTolerance

// littleCause is the cause of row r's Little's-law mismatch when its
// failed requests may explain it: a ratio under 1 with failures. From a
// failed share of littleFailedShare on, the failures are the cause and
// the check cannot judge the step; below it, they or the configuration.
// littleBlame when failures cannot explain it (none failed, or the ratio
// is high).
func littleCause(r *Row) string {
	n := r.Completed + r.Failed
	if r.Failed == 0 || r.LittlesLawRatio == nil || *r.LittlesLawRatio >= 1 || n == 0 {
		return littleBlame
	}
	if float64(r.Failed)/float64(n) >= littleFailedShare {
		return fmt.Sprintf("%d of %d requests failed: failed requests held slots too (a timeout up to --request-timeout), "+
			"which the check does not count, so it cannot judge this step", r.Failed, n)
	}
	return fmt.Sprintf("%d of %d requests failed and held slots the check does not count (a timeout up to --request-timeout), or %s",
		r.Failed, n, littleBlame)
}
