package bench

import (
	"context"
	"fmt"
	"net/http"

	"github.com/llmbench/llmbench/internal/record"
)

// EndpointError stops a step whose first requests all failed the same
// way a misconfiguration fails (Plan.AbortAfter).
type EndpointError struct {
	// N requests failed, all with Class; First is the first one's error,
	// Status its HTTP status (0 without a response).
	N      int
	Class  string
	Status int
	First  string
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("the first %d requests all failed (%s): %s", e.N, e.Class, e.First)
}

// fatalClass reports whether a failure says the run is misconfigured
// rather than the server loaded: no connection, or a 4xx other than 429.
func fatalClass(r *record.Record) bool {
	switch r.ErrorClass {
	case record.ErrConnection:
		return true
	case record.ErrHTTP4xx:
		return r.HTTPStatus != http.StatusTooManyRequests
	}
	return false
}

// failWatch sees records in completion order (on the collector
// goroutine) and aborts the step when the first n all failed alike.
type failWatch struct {
	n, seen int
	done    bool
	first   *EndpointError
	abort   context.CancelCauseFunc
}

func (w *failWatch) see(r *record.Record) {
	if w.n <= 0 || w.done {
		return
	}
	if r.Success || !fatalClass(r) || (w.first != nil && w.first.Class != r.ErrorClass) {
		w.done = true
		return
	}
	if w.first == nil {
		w.first = &EndpointError{Class: r.ErrorClass, Status: r.HTTPStatus, First: r.Error}
	}
	w.seen++
	if w.seen == w.n {
		w.done = true
		w.first.N = w.n
		w.abort(w.first)
	}
}
