package bench

import (
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// DateLayout is the result's date stamp (record.DateLayout).
const DateLayout = record.DateLayout

// Summary is a step's figures and the params they were computed with.
type Summary struct {
	Params  record.Params
	Metrics *metrics.Summary
}

// FinalParams completes p.Params with what only the run knows: the
// duration, date, interrupted flag and ramp-up events.
func FinalParams(p *Plan, o *Outcome) record.Params {
	params := p.Params
	params.DurationS = o.Duration.Seconds()
	if params.DurationS <= 0 {
		params.DurationS = 1e-9 // nothing ran (interrupted at once); keep metrics defined
	}
	if params.Date == "" {
		// The caller may have fixed it earlier (a records file named
		// after the result); else the dispatch start.
		params.Date = o.Start.Format(DateLayout)
	}
	params.Interrupted = o.Interrupted
	params.RPSChangeEvents = nil
	for _, c := range o.RampEvents {
		// vLLM stamps each step with datetime.now().isoformat() at dispatch.
		params.RPSChangeEvents = append(params.RPSChangeEvents, record.RPSChangeEvent{
			RPS: c.RPS, Timestamp: o.Start.Add(c.At).Format("2006-01-02T15:04:05.000000")})
	}
	return params
}

// Summarize computes a step's metrics from its records: a pure function
// of the records and the params (docs/metrics.md).
func Summarize(p *Plan, o *Outcome) (*Summary, error) {
	params := FinalParams(p, o)
	var counter metrics.TokenCounter
	if p.Tokenizer != nil {
		counter = p.Tokenizer
	}
	mp, err := metrics.ParamsFrom(&params, counter)
	if err != nil {
		return nil, err
	}
	sum, err := metrics.Summarize(o.Records, mp)
	if err != nil {
		return nil, err
	}
	return &Summary{Params: params, Metrics: sum}, nil
}
