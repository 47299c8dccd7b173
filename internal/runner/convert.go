package runner

import (
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

// toRecord turns what a backend observed into a Record on the run's clock
// (seconds since origin), with vLLM's rules: ttft from the start to the first
// token chunk, one ITL entry per later chunk, latency to the last token chunk
// for successes and 0 for failures, prompt_len replaced by the server's
// usage.prompt_tokens when it sent one.
func toRecord(req *backend.Request, resp *backend.Response, origin, intended, arrived time.Time) record.Record {
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
	if !resp.Start.IsZero() {
		r.StartTime = resp.Start.Sub(origin).Seconds()
	} else {
		// The request never got to send (cancelled while queued): place it
		// where it arrived so the record still lines up with the others.
		r.StartTime = arrived.Sub(origin).Seconds()
	}
	it := intended.Sub(origin).Seconds()
	r.IntendedTime = &it
	if !resp.Start.IsZero() && resp.Start.After(arrived) {
		r.QueueTime = resp.Start.Sub(arrived).Seconds()
	}
	if n := len(resp.ChunkTimes); n > 0 {
		r.TTFT = resp.ChunkTimes[0].Sub(resp.Start).Seconds()
		if n > 1 {
			r.ITL = make([]float64, n-1)
			for i := 1; i < n; i++ {
				r.ITL[i-1] = resp.ChunkTimes[i].Sub(resp.ChunkTimes[i-1]).Seconds()
			}
		}
		if r.Success {
			r.Latency = resp.ChunkTimes[n-1].Sub(resp.Start).Seconds()
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
