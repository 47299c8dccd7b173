package report

import (
	"math"
	"testing"
)

// TestCheckCompareOptions: the three formats and levels in (0, 1] pass;
// the format is checked first.
func TestCheckCompareOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		format  string
		alpha   float64
		wantErr string // "" for none
	}{
		{"defaults", "table", DefaultAlpha, ""},
		{"json", "json", 0.01, ""},
		{"csv, tests off", "csv", 1, ""},                                                             // 1 is the plain threshold
		{"html", "html", DefaultAlpha, `--format "html": want table, json or csv`},                   // report's, not compare's
		{"both bad", "", 0, `--format "": want table, json or csv`},                                  // the format first
		{"zero", "table", 0, "--alpha 0: want a level in (0, 1], e.g. 0.05 (1 turns the tests off)"}, // nothing significant
		{"over one", "table", 1.5, "--alpha 1.5: want a level in (0, 1], e.g. 0.05 (1 turns the tests off)"},
		{"NaN", "table", math.NaN(), "--alpha NaN: want a level in (0, 1], e.g. 0.05 (1 turns the tests off)"}, // fails both comparisons
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckCompareOptions(tc.format, tc.alpha)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("CheckCompareOptions(%q, %g) = %q, want %q", tc.format, tc.alpha, got, tc.wantErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
