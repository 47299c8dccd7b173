package bench

import (
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// Sink observes one step: the records file, the progress line and the
// live Prometheus exporter are each one. Execute calls Begin once, just
// before the first request goes out; Record for every request, as it
// finishes; and End once, after the timed run, for every sink whose Begin
// succeeded — whatever became of the step.
type Sink interface {
	// Begin is called after the warm-ups and the wait for Plan.StartAt,
	// at the instant start the timed run counts from (wall and monotonic
	// reading), with the records header: the params known so far and the
	// wall-clock anchor of start. An error stops the step before anything
	// is sent; Execute returns it.
	Begin(start time.Time, h record.Header) error
	// Record sees each record as it completes, from one goroutine that is
	// not on any request's path (see openLoop). It must not block for
	// long: a stalled sink delays the records after it, never a request.
	Record(r *record.Record)
	// End sees the step's outcome (self-check included) once the timed
	// run is over, interrupted or not; nil when the step stopped without
	// one (Execute returns an error: say, an *EndpointError).
	End(o *Outcome)
}

// Sinks is a Sink that hands every call to each of its sinks in turn, in
// order; nil entries are skipped, so an optional sink needs no branch.
// Every sink sees the end: none replaces another.
type Sinks []Sink

// Begin begins each sink in turn. When one fails, those already begun
// are ended (End(nil)), so a sink that began always ends, and the error
// is returned.
func (ss Sinks) Begin(start time.Time, h record.Header) error {
	for i, s := range ss {
		if s == nil {
			continue
		}
		if err := s.Begin(start, h); err != nil {
			ss[:i].End(nil)
			return err
		}
	}
	return nil
}

// Record hands r to each sink in turn.
func (ss Sinks) Record(r *record.Record) {
	for _, s := range ss {
		if s != nil {
			s.Record(r)
		}
	}
}

// End ends each sink in turn.
func (ss Sinks) End(o *Outcome) {
	for _, s := range ss {
		if s != nil {
			s.End(o)
		}
	}
}
