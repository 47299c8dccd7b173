package merge

import (
	"fmt"
	"io"
	"time"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// WriteNotes says what was merged: the workers, the requests, how far
// apart the workers began, and what the common timeline rests on (the
// workers' clocks, the workers that did not finish).
func WriteNotes(w io.Writer, m *Result) {
	fmt.Fprintf(w, "Merged run %s: %d workers, %d requests; the workers began dispatch within %v of each other.\n",
		m.Worker.RunID, m.Worker.Count, len(m.Records), m.StartSpread.Round(time.Microsecond))
	if len(m.Unsynced) > 0 {
		fmt.Fprintf(w, "Note: worker(s) %v had a clock their kernel marks unsynchronised (no NTP/chrony): the common timeline assumes synchronised clocks (docs/distributed.md).\n", m.Unsynced)
	}
	if m.ClockBound > 0 {
		fmt.Fprintf(w, "The synchronised workers' clocks agreed within %v (the kernel's maximum-error estimates).\n", m.ClockBound)
	}
	if len(m.Unfinished) > 0 {
		fmt.Fprintf(w, "Note: worker(s) %v did not finish (no closing line in their records): their end is estimated from their records.\n", m.Unfinished)
	}
}

// Object is the merged result JSON: vLLM's result with the per-request
// arrays, the llmbench object and the llmbench_merge object; s is the
// merged records' summary, opt what the caller adds (steady_state).
func Object(m *Result, s *metrics.Summary, opt report.ResultOptions) (*report.Object, error) {
	opt.Detailed, opt.Extras = true, true
	obj, err := report.Result(s, &m.Params, m.Records, opt)
	if err != nil {
		return nil, err
	}
	obj.Set("llmbench_merge", map[string]any{
		"run_id": m.Worker.RunID, "config_hash": m.Worker.ConfigHash, "workers": m.Worker.Count,
		"start_unix_ns": m.Anchor.UnixNano, "start_spread_s": m.StartSpread.Seconds(),
		"clock_unsynced_workers": m.Unsynced, "clock_bound_s": m.ClockBound.Seconds(),
	})
	return obj, nil
}

// WriteRecords writes the merged records as one streamed records file:
// the header with the merged worker block and the earliest anchor, the
// records, the closing line with the merged params.
func WriteRecords(w io.Writer, m *Result) error {
	anchor, worker := m.Anchor, m.Worker
	s, err := record.NewStream(w, record.Header{Params: m.Params, Start: &anchor, Worker: &worker})
	if err != nil {
		return err
	}
	for i := range m.Records {
		if err := s.Add(&m.Records[i]); err != nil {
			break // kept by the stream and returned by Close
		}
	}
	return s.Close(&m.Params, 0)
}
