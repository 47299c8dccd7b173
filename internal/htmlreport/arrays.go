package htmlreport

import (
	"fmt"
	"github.com/llmbench/llmbench/internal/report"

	"github.com/llmbench/llmbench/internal/record"
)

// fromArrays builds Requests from a result's --save-detailed arrays
// (vLLM's ttfts, itls, output_lens, start_times, errors; llmbench adds
// nothing there). It returns nil when ttfts or itls are absent. A request
// without an error text and with a TTFT counts as successful; its E2EL is
// TTFT + the sum of its ITLs (the time of its last chunk, as vLLM
// measures latency). start_times are absent in older vLLM files: the
// requests are then laid out from 0 in order.
func fromArrays(v map[string]any) ([]Request, error) {
	ttfts, okT := report.NumberList(v["ttfts"])
	itlsRaw, okI := v["itls"].([]any)
	if !okT || !okI {
		return nil, nil
	}
	n := len(ttfts)
	if len(itlsRaw) != n {
		return nil, fmt.Errorf("ttfts has %d entries but itls %d", n, len(itlsRaw))
	}
	outLens, _ := report.NumberList(v["output_lens"])
	starts, _ := report.NumberList(v["start_times"])
	errs, _ := v["errors"].([]any)
	reqs := make([]Request, n)
	for i := range reqs {
		itl, _ := report.NumberList(itlsRaw[i])
		q := Request{TTFT: ttfts[i], ITL: itl}
		if i < len(starts) {
			q.Start = starts[i]
		}
		if i < len(outLens) {
			q.OutputLen = int(outLens[i])
		}
		msg := ""
		if i < len(errs) {
			msg, _ = errs[i].(string)
		}
		q.OK = msg == "" && q.TTFT > 0
		if q.OK {
			q.E2EL = q.TTFT
			for _, g := range itl {
				q.E2EL += g
			}
		} else {
			q.ErrorClass = "unclassified"
			q.OutputLen = 0
		}
		// The records' own bounds: a time past record.MaxSeconds overflows
		// the charts' milliseconds (the histogram panicked).
		r := record.Record{TTFT: q.TTFT, ITL: itl, Latency: q.E2EL, StartTime: q.Start}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("request %d of the per-request arrays: %w", i, err)
		}
		reqs[i] = q
	}
	return reqs, nil
}
