package cli

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
)

// defaultStepGap is --step-gap's default: room for the previous step's
// drain (requests in flight when its --step-duration ends) and the next
// step's warm-ups, on a server that answers in seconds.
const defaultStepGap = 30 * time.Second

// lateMarker ends the note of a step that started late; merge carries
// such notes into the merged sweep.
const lateMarker = "late: raise --step-gap"

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

// stepStart is step k's start instant (k from 0, every run of every
// load counted) on the clock schedule; zero without --start-at.
func (d *sweepDriver) stepStart(k int) time.Time {
	at := d.o.w.at
	if at.IsZero() {
		return at
	}
	return at.Add(time.Duration(k) * (d.o.s.stepDuration + d.o.s.stepGap))
}

// lateNote is the warning for a step that was not ready by its start
// instant (it then started at once, out of step with the other workers);
// "" when it was on time. It is printed now and kept in the sweep's notes.
func (d *sweepDriver) lateNote(o *bench.Outcome) string {
	if o.Late <= 0 {
		return ""
	}
	note := fmt.Sprintf("step %d started %v %s (it must cover the previous step's drain and this step's warm-ups)", d.n, o.Late.Round(time.Millisecond), lateMarker)
	if w := d.o.w.info; w != nil {
		note = fmt.Sprintf("worker %d: %s", w.Index, note)
	}
	fmt.Fprintln(d.ui.errw, "  Warning: "+note)
	d.late = append(d.late, note)
	return note
}

// stepRecords is where a step's per-request records stream: beside its
// result (NAME.records.jsonl), where llmbench merge reads them. Worker
// mode always keeps them (a merge needs them); a single process with
// --save-detailed too.
func (d *sweepDriver) stepRecords(name string) *recordsOut {
	rec := &recordsOut{}
	rec.Worker = d.o.w.headerInfo
	if d.o.w.info != nil || d.o.f.saveDetailed {
		rec.Path = filepath.Join(d.dir, strings.TrimSuffix(name, ".json")+".records.jsonl")
	}
	return rec
}

// printSchedule says, before the first step, which share this worker
// runs and when the steps start.
func (d *sweepDriver) printSchedule(w io.Writer) {
	if d.o.w.at.IsZero() {
		return
	}
	if i := d.o.w.info; i != nil {
		fmt.Fprintf(w, "Worker %d of %d, run %s (config %s): this worker's share of every step. ", i.Index, i.Count, i.RunID, i.ConfigHash)
	}
	fmt.Fprintf(w, "Step 1 starts at %s, each next one %v later (--step-duration %v + --step-gap %v).\n",
		d.stepStart(0).UTC().Format(time.RFC3339Nano), d.o.s.stepDuration+d.o.s.stepGap, d.o.s.stepDuration, d.o.s.stepGap)
}
