package htmlreport

import (
	"slices"
	"testing"
)

// TestSweepSectionCarriesNotes: the sweep page says what the console says
// after its table — the sweep's own notes (small samples, Little's law,
// the steady window) — and that a max load resting on unresolved steps
// is not resolved. The page dropped both.
func TestSweepSectionCarriesNotes(t *testing.T) {
	t.Parallel()
	sw, err := readSweep("testdata/sweep-synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	note := "throughput over each step's steady window (vLLM's steady_state); ramp and drain excluded"
	sw.Notes = append(sw.Notes, note)
	no, lower := false, 8.0
	sw.MaxLoadUnderSLA.Resolved, sw.MaxLoadUnderSLA.LowerBound = &no, &lower
	s := sweepSection(sw)
	if !slices.Contains(s.Notes, note) {
		t.Errorf("the sweep's note is not on the page: %q", s.Notes)
	}
	want := "Max load under the SLA: 16 (binding: p99_ttft_ms), not resolved: surely met up to 8."
	if !slices.Contains(s.Notes, want) {
		t.Errorf("notes %q lack %q", s.Notes, want)
	}
}
