package capacity

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
)

// TestLittleNoteFailures: the Little's-law note blames the configuration
// only when no failure can explain a low ratio: failed requests (timeouts)
// held their slots too, and the check counts only the successes
// (docs/capacity.md, "Little's law").
func TestLittleNoteFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name              string
		completed, failed int
		e2elMs            float64 // at concurrency 8, 4 req/s
		want, wantNot     string
	}{
		{"no failure: the configuration or a short step", 100, 0, 200, "not kept in flight as configured", "failed"},
		{"half timed out: the failures held the slots", 40, 60, 200,
			"60 of 100 requests failed: failed requests held slots too", "not kept in flight as configured"},
		{"a few failed: they or the configuration", 95, 5, 200, "5 of 100 requests failed and held slots", "cannot judge"},
		{"a high ratio: failures do not explain it", 40, 60, 4000, "not kept in flight as configured", "failed requests held"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sum := &metrics.Summary{Completed: c.completed, Failed: c.failed, RequestThroughput: 4, OutputThroughput: 40,
				Metrics: []metrics.Stats{{Metric: metrics.E2EL, Mean: c.e2elMs}}}
			row := RowFrom(sum, Step{Load: 8, Kind: Concurrency})
			an, err := Analyze(Concurrency, nil, []Row{row})
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(an.Notes, "\n")
			if !strings.Contains(notes, "Little's law is off") || !strings.Contains(notes, c.want) ||
				strings.Contains(notes, c.wantNot) {
				t.Errorf("notes %q: want %q, not %q", notes, c.want, c.wantNot)
			}
		})
	}
}
