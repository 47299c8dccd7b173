package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckFormat: table and json pass; anything else names the flag
// and the choices.
func TestCheckFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format, wantErr string
	}{
		{"table", ""}, // the default
		{"json", ""},  // the plan file
		{"csv", `--format "csv": want table or json`},   // compare's, not plan's
		{"", `--format "": want table or json`},         // given empty
		{"JSON", `--format "JSON": want table or json`}, // names are lower case
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			err := CheckFormat(tc.format)
			if got := errText(err); got != tc.wantErr {
				t.Errorf("CheckFormat(%q) = %q, want %q", tc.format, got, tc.wantErr)
			}
		})
	}
}

// TestWrite: each format writes its form of the plan, byte for byte the
// goldens of TestPlanRealSweep.
func TestWrite(t *testing.T) {
	t.Parallel()
	p := realPlan(t)
	for _, tc := range []struct {
		format string
		golden string
	}{
		{"table", "plan-sim-batch8.txt.golden"},
		{"json", "plan-sim-batch8.json.golden"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			var got bytes.Buffer
			if err := Write(&got, p, tc.format); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("Write(%s) differs from %s:\n%s", tc.format, tc.golden, got.Bytes())
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
