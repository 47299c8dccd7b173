package sweep

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
)

// The Little's-law note of a step where requests failed. The check
// (capacity, docs/capacity.md "Little's law") sets the successes'
// throughput × mean E2EL against the slots the step kept; a failed
// request held its slot too — a timeout for up to --request-timeout —
// and neither figure counts it. A sweep whose steps timed out half their
// requests read "off by -90 %: requests were not kept in flight as
// configured", blaming a configuration that was fine.

// littleBlame is the cause the check's note gives for a ratio off by
// more than capacity.LittleTolerance.
const littleBlame = "requests were not kept in flight as configured, or the step was too short"

// littleFailedShare is the failed share of a step's requests from which
// its failures alone account for a low ratio: the check's own tolerance
// (a share f of requests failing as slowly as the rest succeed leaves
// the successes 1 - f of the slots).
const littleFailedShare = capacity.LittleTolerance

// explainLittle words the Little's-law note of every step whose low
// ratio its failed requests may explain (littleCause); the notes of the
// flagged steps come in the order of the steps.
func explainLittle(an *capacity.Sweep) {
	var off []*capacity.Row
	for i := range an.Steps {
		if an.Steps[i].LittlesLawOff {
			off = append(off, &an.Steps[i])
		}
	}
	for i, n := range an.Notes {
		if len(off) == 0 {
			return
		}
		if !strings.Contains(n, "Little's law is off by") {
			continue
		}
		if cause := littleCause(off[0]); cause != "" {
			an.Notes[i] = strings.Replace(n, littleBlame, cause, 1)
		}
		off = off[1:]
	}
}

// littleCause is the cause of row r's Little's-law mismatch when its
// failed requests may explain it: a ratio under 1 with failures. From a
// failed share of littleFailedShare on, the failures are the cause and
// the check cannot judge the step; below it, they or the configuration.
// "" when failures cannot explain it (none failed, or the ratio is high).
func littleCause(r *capacity.Row) string {
	n := r.Completed + r.Failed
	if r.Failed == 0 || r.LittlesLawRatio == nil || *r.LittlesLawRatio >= 1 || n == 0 {
		return ""
	}
	if float64(r.Failed)/float64(n) >= littleFailedShare {
		return fmt.Sprintf("%d of %d requests failed: failed requests held slots too (a timeout up to --request-timeout), "+
			"which the check does not count, so it cannot judge this step", r.Failed, n)
	}
	return fmt.Sprintf("%d of %d requests failed and held slots the check does not count (a timeout up to --request-timeout), or %s",
		r.Failed, n, littleBlame)
}
