package plan

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/table"
)

// TestCandidatesTableVerdict: the console says "not eligible" where the
// page gives the reason; the recommendation is marked pass and the
// ineligible fail on both.
func TestCandidatesTableVerdict(t *testing.T) {
	t.Parallel()
	p := &Plan{
		Candidates: []Candidate{
			{Label: "never", Reason: "never met the SLA"},
			{Label: "cheap", Eligible: true},
			{Label: "dear", Eligible: true},
		},
		Recommendation: &Recommendation{Label: "cheap"},
	}
	tests := []struct {
		page bool
		want []string
	}{
		{false, []string{"not eligible", "RECOMMENDED", "ok"}},
		{true, []string{"never met the SLA", "RECOMMENDED", "ok"}},
	}
	for _, tt := range tests {
		tb := CandidatesTable(p, tt.page)
		marks := []string{table.Fail, table.Pass, ""}
		for i, r := range tb.Rows {
			v := r[len(r)-1]
			if v.Text != tt.want[i] || v.Mark != marks[i] {
				t.Errorf("page %v, %s: verdict %q mark %q, want %q %q", tt.page, r[0].Text, v.Text, v.Mark, tt.want[i], marks[i])
			}
		}
		if h := strings.Join(tb.Headers(), "|"); strings.Contains(h, "Planned / replica") != tt.page {
			t.Errorf("page %v: headers %s", tt.page, h)
		}
	}
	if SlotsTable(p, false) != nil {
		t.Error("slots table without a planned candidate")
	}
}
