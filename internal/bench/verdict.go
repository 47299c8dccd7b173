package bench

import (
	"fmt"

	"github.com/llmbench/llmbench/internal/metrics"
)

// Verdict is a finished run's judgement of its own outcome, before the
// client's self-check: the command line turns it into an exit code.
type Verdict struct {
	// Interrupted says the run was cut short: its figures are partial.
	Interrupted bool
	// Failure says why the run failed ("" = it did not): no request
	// succeeded, or more failed than the error-rate gate allows.
	Failure string
	// Alike is the failure every request shared when none succeeded (nil
	// otherwise): the subject of an endpoint hint
	// (prepare.EndpointHint), as the early stop's EndpointError is for a
	// run large enough to stop early.
	Alike *EndpointError
}

// Judge judges outcome o summarised as s; maxErrorRate is the largest
// fraction of requests that may fail (nil = no gate).
func Judge(o *Outcome, s *metrics.Summary, maxErrorRate *float64) Verdict {
	if o.Interrupted {
		return Verdict{Interrupted: true}
	}
	n := len(o.Records)
	if n > 0 && s.Completed == 0 {
		return Verdict{Failure: fmt.Sprintf("no request succeeded (%d of %d failed; first error: %s)", s.Failed, n, o.FirstError()), Alike: o.AllFailedAlike()}
	}
	if maxErrorRate != nil && n > 0 {
		if rate := float64(s.Failed) / float64(n); rate > *maxErrorRate {
			return Verdict{Failure: fmt.Sprintf("error rate %.2f%% (%d of %d requests failed) exceeds --max-error-rate %.2f%%",
				100*rate, s.Failed, n, 100**maxErrorRate)}
		}
	}
	return Verdict{}
}
