package cli

import (
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
)

// The progress line is a bench.Sink: it starts drawing when the step
// begins, counts each record and clears itself at the end, whatever
// became of the step. A nil *progress (no terminal) draws nothing.

// Begin starts the clock and the ticker (bench.Sink).
func (p *progress) Begin(start time.Time, _ record.Header) error {
	p.begin(start)
	return nil
}

// Record counts one finished request (bench.Sink).
func (p *progress) Record(r *record.Record) { p.add(r) }

// End stops the ticker and clears the line (bench.Sink).
func (p *progress) End(*bench.Outcome) { p.finish() }
