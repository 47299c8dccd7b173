package runner

import (
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// storeRecord writes toRecord's record to dst. Not inlined: the record
// (~500 bytes) is then built in this call's frame, not in the frame of
// the request's goroutine, which stays on the stack while the response
// streams and which every collection scans, 1,000 times over at 1,000
// streams (BENCHMARKS.md#parked-stacks).
//
//go:noinline
func storeRecord(dst *record.Record, req *backend.Request, resp *backend.Response, origin time.Time, it load.Item) {
	*dst = toRecord(req, resp, origin, it)
}

// toRecord turns what a backend observed for dispatched item it into a
// Record on the run's clock (seconds since origin), with vLLM's rules: ttft
// from the start to the first token chunk, one ITL entry per later chunk,
// latency to the last token chunk for successes and 0 for failures,
// prompt_len replaced by the server's usage.prompt_tokens when it sent one.
// Queue time is start - arrival, vLLM's client_queue_time; a backend that
// failed before sending (no Start) started when it got its slot.
func toRecord(req *backend.Request, resp *backend.Response, origin time.Time, it load.Item) record.Record {
	r := record.Record{
		Index:             req.Index,
		Success:           resp.Err == nil,
		PromptLen:         req.PromptLen,
		ExpectedOutputLen: req.MaxTokens,
		ITL:               []float64{},
		GeneratedText:     resp.Text,
		FinishReason:      resp.FinishReason,
		HTTPStatus:        resp.HTTPStatus,
	}
	start := resp.Start
	if start.IsZero() {
		start = it.Acquired
	}
	r.StartTime = start.Sub(origin).Seconds()
	// On the wall clock through the origin's reading: a wall-clock step
	// during the run does not bend one run's timeline.
	r.StartUnixNano = origin.UnixNano() + int64(start.Sub(origin))
	intended := it.Intended.Sub(origin).Seconds()
	r.IntendedTime = &intended
	if start.After(it.Arrived) {
		r.QueueTime = start.Sub(it.Arrived).Seconds()
	}
	if n := resp.Chunks.Len(); n > 0 {
		r.TTFT = resp.Chunks.At(0).Sub(start).Seconds()
		if n > 1 {
			r.ITL = make([]float64, n-1)
			for i := 1; i < n; i++ {
				r.ITL[i-1] = resp.Chunks.Gap(i).Seconds()
			}
		}
		if r.Success {
			r.Latency = resp.Chunks.At(n - 1).Sub(start).Seconds()
		}
	}
	if resp.PromptTokens != nil {
		r.PromptLen = *resp.PromptTokens
	}
	if resp.CompletionTokens != nil {
		v := *resp.CompletionTokens
		r.OutputTokens = &v
		r.UsageSeen = true
	} else if resp.PromptTokens != nil {
		r.UsageSeen = true
	}
	if resp.Err != nil {
		r.Error = resp.Err.Error()
		r.ErrorClass = resp.ErrClass
		if r.ErrorClass == "" {
			r.ErrorClass = record.ErrOther
		}
	}
	return r
}
