package htmlreport

import (
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
)

// TestStepsTableVerdict: the steps table shows each step's SLA verdict,
// unresolved where the interval straddles a limit.
func TestStepsTableVerdict(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	sw := &Sweep{Sweep: &capacity.Sweep{LoadKind: capacity.Concurrency, Steps: []capacity.Row{
		{Load: 1, SLAPass: &yes, SLAVerdict: capacity.VerdictPass},
		{Load: 2, SLAPass: &yes, SLAVerdict: capacity.VerdictUnresolved},
		{Load: 4, SLAPass: &no, SLAVerdict: capacity.VerdictFail},
		{Load: 8},
	}}}
	tb := capacity.StepTable(sw.Sweep, capacity.StepPage)
	want := []string{"pass", "unresolved", "fail", "-"}
	for i, r := range tb.Rows {
		if got := r[len(r)-1].Text; got != want[i] {
			t.Errorf("step %d: %q, want %q", i, got, want[i])
		}
	}
}
