package bench

import (
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestJudge: an interrupt wins; a run where nothing succeeded fails with
// its first error and, when every request failed alike, that failure for
// the hint; the error-rate gate fails a run above it and only then.
func TestJudge(t *testing.T) {
	t.Parallel()
	refused := record.Record{ErrorClass: record.ErrConnection, Error: "connection\nrefused"}
	notFound := record.Record{ErrorClass: record.ErrHTTP4xx, HTTPStatus: 404, Error: "404"}
	ok := record.Record{Success: true}
	gate := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name    string
		o       Outcome
		s       metrics.Summary
		gate    *float64
		want    string
		alike   bool
		stopped bool
	}{
		{"interrupted", Outcome{Interrupted: true, Records: []record.Record{refused}}, metrics.Summary{Failed: 1}, nil, "", false, true},
		{"all failed alike", Outcome{Records: []record.Record{refused, refused}}, metrics.Summary{Failed: 2},
			nil, "no request succeeded (2 of 2 failed; first error: connection refused)", true, false},
		{"all failed, differently", Outcome{Records: []record.Record{refused, notFound}}, metrics.Summary{Failed: 2},
			nil, "no request succeeded (2 of 2 failed; first error: connection refused)", false, false},
		{"nothing sent", Outcome{}, metrics.Summary{}, gate(0), "", false, false},
		{"under the gate", Outcome{Records: []record.Record{ok, refused}}, metrics.Summary{Completed: 1, Failed: 1}, gate(0.5), "", false, false},
		{"above the gate", Outcome{Records: []record.Record{ok, refused, refused}}, metrics.Summary{Completed: 1, Failed: 2},
			gate(0.5), "error rate 66.67% (2 of 3 requests failed) exceeds --max-error-rate 50.00%", false, false},
		{"no gate", Outcome{Records: []record.Record{ok, refused, refused}}, metrics.Summary{Completed: 1, Failed: 2}, nil, "", false, false},
	} {
		v := Judge(&tc.o, &tc.s, tc.gate)
		if v.Failure != tc.want || (v.Alike != nil) != tc.alike || v.Interrupted != tc.stopped {
			t.Errorf("%s: %+v, want failure %q, alike %v, interrupted %v", tc.name, v, tc.want, tc.alike, tc.stopped)
		}
	}
}

// TestExpected: a progress bar's total is the requests, every turn of a
// multi-turn replay, or unknown under a time bound.
func TestExpected(t *testing.T) {
	t.Parallel()
	turns := 7
	reqs := []backend.Request{{}, {}, {}}
	for _, tc := range []struct {
		name string
		p    Plan
		want int
	}{
		{"requests", Plan{Requests: reqs}, 3},
		{"conversations", Plan{Requests: reqs, Conversations: []Conversation{{}}, Params: record.Params{NumPrompts: &turns}}, 7},
		{"time bound", Plan{Requests: reqs, Load: Load{Duration: time.Minute}}, 0},
	} {
		if got := tc.p.Expected(); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
