package cli

import (
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/capacity"
)

// defaultStepGap is --step-gap's default: room for the previous step's
// drain (requests in flight when its --step-duration ends) and the next
// step's warm-ups, on a server that answers in seconds.
const defaultStepGap = 30 * time.Second

// checkSweepWorker validates the clock schedule and worker mode of a
// sweep (docs/distributed.md, "Sweeps"). Workers have no coordinator, so
// they agree on step boundaries by the clock alone: step k starts at
// --start-at + k × (--step-duration + --step-gap). That needs both flags;
// and what depends on analysing the merged data while the sweep runs
// (--refine, --stop-when-saturated) cannot be decided by one worker.
func (o *sweepOptions) checkSweepWorker(cmd *cobra.Command, kind capacity.Kind, loads []float64) error {
	s, w := &o.s, &o.w
	if s.stepGap < 0 {
		return usageErrorf("--step-gap must not be negative")
	}
	if w.at.IsZero() {
		if w.info != nil {
			return usageErrorf("sweep in worker mode needs --start-at: the workers agree on every step's start by the clock (docs/distributed.md)")
		}
		if cmd.Flags().Changed("step-gap") {
			return usageErrorf("--step-gap needs --start-at (it spaces the steps of a clock-scheduled sweep)")
		}
		return nil
	}
	if s.stepDuration <= 0 {
		return usageErrorf("sweep with --start-at needs --step-duration: step k starts at start-at + k x (step-duration + step-gap)")
	}
	if w.info == nil {
		return nil
	}
	if s.refine > 0 || s.stopWhenSaturated {
		return usageErrorf("--refine and --stop-when-saturated need the merged data: in worker mode, run llmbench merge on the workers' sweeps, then sweep the loads you want to refine by hand")
	}
	n := w.info.Count
	for _, l := range loads {
		if kind.Integer() && int(l) < n {
			return usageErrorf("--%s %s cannot be split across %d workers: want at least one each", flagOf(kind), strconv.FormatFloat(l, 'f', -1, 64), n)
		}
		if !kind.Integer() && s.promptsPerStep == 0 && math.Ceil(l*s.stepDuration.Seconds()) < float64(n) {
			return usageErrorf("--request-rates %s sends fewer requests per --step-duration than there are workers (%d)", strconv.FormatFloat(l, 'f', -1, 64), n)
		}
	}
	return nil
}
