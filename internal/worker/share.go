package worker

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// Share turns plan into this worker's share and sets the start instant,
// saying on notes what the worker sends; a single process keeps its plan
// (with --start-at, if given). An error is the plan's refusal to be
// split (fewer requests, users or concurrency than workers).
func (w *Worker) Share(plan *bench.Plan, notes io.Writer) (*bench.Plan, error) {
	plan.StartAt = w.At
	if w.Info == nil {
		return plan, nil
	}
	q, err := plan.Share(bench.Share{Index: w.Info.Index, Count: w.Info.Count})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(notes, "Worker %d of %d, run %s (config %s): %d of %d requests", w.Info.Index, w.Info.Count, w.Info.RunID, w.Info.ConfigHash, len(q.Requests), len(plan.Requests))
	if !w.At.IsZero() {
		fmt.Fprintf(notes, ", dispatch at %s", w.Info.StartAt)
	}
	fmt.Fprintln(notes, ".")
	if w.At.IsZero() {
		fmt.Fprintln(notes, "Note: no --start-at: the workers start when they are ready, not together (docs/distributed.md).")
	}
	return q, nil
}

// HeaderInfo is the worker block of the records header with the clock's
// synchronisation read now by clock (host.ClockSync), just before
// dispatch; nil for a single process.
func (w *Worker) HeaderInfo(clock func() *record.ClockSync) *record.WorkerInfo {
	if w.Info == nil {
		return nil
	}
	info := *w.Info
	info.Clock = clock()
	return &info
}
