package bench

import (
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestFailuresView: only an interrupted outcome sets its canceled
// requests apart (count, error lines, the all-failed warning); the
// summary itself is never changed.
func TestFailuresView(t *testing.T) {
	t.Parallel()
	ok := record.Record{Success: true}
	canceled := record.Record{ErrorClass: record.ErrCanceled, Error: "context canceled"}
	refused := record.Record{ErrorClass: record.ErrConnection, Error: "connection refused"}
	tests := []struct {
		name        string
		interrupted bool
		recs        []record.Record
		wantFailed  int
		wantCancel  int
		wantErrors  []string
		wantWarning bool
	}{
		{"not interrupted", false, []record.Record{canceled, canceled}, 2, 0, []string{"x"}, true},
		{"interrupted, only canceled", true, []record.Record{ok, canceled, canceled}, 0, 2, nil, false},
		{"interrupted, a real failure", true, []record.Record{canceled, refused}, 1, 1, []string{"connection refused"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum := &metrics.Summary{Failed: 2, FailedErrors: []string{"x"}, Warnings: []string{metrics.AllFailedWarning}}
			o := &Outcome{Interrupted: tt.interrupted, Records: tt.recs}
			v, n := FailuresView(sum, o)
			if v.Failed != tt.wantFailed || n != tt.wantCancel || !slices.Equal(v.FailedErrors, tt.wantErrors) ||
				slices.Contains(v.Warnings, metrics.AllFailedWarning) != tt.wantWarning {
				t.Errorf("view failed %d errors %q warnings %q, canceled %d", v.Failed, v.FailedErrors, v.Warnings, n)
			}
			if sum.Failed != 2 || len(sum.Warnings) != 1 {
				t.Error("the summary itself was changed")
			}
		})
	}
}

// TestOutcomeFailures: AllFailedAlike needs every record failed with one
// class and status; Canceled counts the canceled class.
func TestOutcomeFailures(t *testing.T) {
	t.Parallel()
	e404 := record.Record{ErrorClass: record.ErrHTTP4xx, HTTPStatus: 404, Error: "not found"}
	e400 := record.Record{ErrorClass: record.ErrHTTP4xx, HTTPStatus: 400, Error: "bad"}
	tests := []struct {
		name     string
		recs     []record.Record
		alike    int // the EndpointError's N; 0 = nil
		canceled int
	}{
		{"none", nil, 0, 0},
		{"all 404", []record.Record{e404, e404, e404}, 3, 0},
		{"404 and 400", []record.Record{e404, e400}, 0, 0},
		{"one success", []record.Record{e404, {Success: true}}, 0, 0},
		{"canceled", []record.Record{{ErrorClass: record.ErrCanceled}, e404}, 0, 1},
	}
	for _, tt := range tests {
		o := &Outcome{Records: tt.recs}
		e := o.AllFailedAlike()
		if n := 0; e != nil {
			n = e.N
			if n != tt.alike || e.Status != 404 || e.First != "not found" {
				t.Errorf("%s: %+v", tt.name, e)
			}
		} else if tt.alike != 0 {
			t.Errorf("%s: not alike", tt.name)
		}
		if got := o.Canceled(); got != tt.canceled {
			t.Errorf("%s: Canceled() = %d, want %d", tt.name, got, tt.canceled)
		}
	}
}
