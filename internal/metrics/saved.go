package metrics

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// SummarizeRecords summarizes records read back from a file (llmbench
// metrics and merge, the report pages, compare's samples) under their
// own params. The token counter is the whitespace stand-in for
// record.TokenizerWhitespace, else none: for a tokenizer id the records
// carry the counts the run made with it.
func SummarizeRecords(p *record.Params, recs []record.Record) (*Summary, error) {
	var counter TokenCounter
	if p.Tokenizer == record.TokenizerWhitespace {
		counter = Whitespace{}
	}
	mp, err := ParamsFrom(p, counter)
	if err != nil {
		return nil, err
	}
	return Summarize(recs, mp)
}

// Overrides are metric parameters given again over a records file's own
// (llmbench metrics' flags, docs/metrics.md): a nil field keeps the
// file's value.
type Overrides struct {
	// PercentileMetrics and MetricPercentiles are vLLM's comma lists.
	PercentileMetrics, MetricPercentiles *string
	// Goodput holds vLLM's --goodput items (KEY:VALUE, ms), ParseGoodput's
	// input; nil keeps the file's SLOs.
	Goodput []string
	// Tokenizer is record.TokenizerWhitespace, record.TokenizerNone or a
	// tokenizer id.
	Tokenizer *string
	// Date is the result's date as record.DateLayout.
	Date *string
}

// Apply writes the overrides over p, in the flags' order so that the
// first bad value is the one reported. A p left without a date gets now's,
// as a result always carries one.
func (o Overrides) Apply(p *record.Params, now time.Time) error {
	if o.PercentileMetrics != nil {
		p.PercentileMetrics = *o.PercentileMetrics
	}
	if o.MetricPercentiles != nil {
		p.MetricPercentiles = *o.MetricPercentiles
	}
	if o.Goodput != nil {
		g, err := ParseGoodput(o.Goodput)
		if err != nil {
			return err
		}
		p.Goodput = g
	}
	if o.Tokenizer != nil {
		p.Tokenizer = *o.Tokenizer
	}
	if o.Date != nil {
		if _, err := time.Parse(record.DateLayout, *o.Date); err != nil {
			return fmt.Errorf("--date %q: want YYYYMMDD-HHMMSS", *o.Date)
		}
		p.Date = *o.Date
	}
	if p.Date == "" {
		p.Date = now.Format(record.DateLayout)
	}
	return nil
}

// RecordsSteadyState is the steady_state of records read back from a
// file, as the run wrote it (docs/confidence.md#steady_state): write is
// false for a multi-turn run's records (they number their turns), whose
// result has no such key; else ss is the window's figures for a closed
// loop at an infinite rate with max_concurrency, nil (null) when there
// is none. opt carries the steady-state flags; the run's own figures come
// from p and s. A replayed trace cannot be told from its records: the
// run writes null for one, this computes a window when its params name a
// concurrency at rate inf.
func RecordsSteadyState(p *record.Params, recs []record.Record, s *Summary, opt SteadyStateOptions) (ss *SteadyState, write bool, err error) {
	for i := range recs {
		if recs[i].Turn > 0 {
			return nil, false, nil
		}
	}
	ss, err = SteadyStateOf(recs, s.OutputLens, opt.ForRun(p, s))
	if err != nil {
		return nil, false, err
	}
	return ss, true, nil
}
