package savedfile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestAllSweeps: all sweeps or no sweeps pick compare's mode; a mix is
// an error counting the sweeps; an unreadable file is the file system's
// error.
func TestAllSweeps(t *testing.T) {
	t.Parallel()
	sweep := write(t, "sweep-a.json", read(t, realSweep))
	result := write(t, "r.json", []byte(`{"duration": 1}`))
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, tc := range []struct {
		name    string
		paths   []string
		want    bool
		wantErr string // "" for none
	}{
		{"results", []string{result, result}, false, ""}, // Δ% mode
		{"sweeps", []string{sweep, sweep}, true, ""},     // candidates mode
		{"one sweep", []string{sweep}, true, ""},         // a single sweep is a candidate list
		{"mixed", []string{result, sweep, result}, false, // neither mode
			"compare takes result files or sweep files, not both (1 of 3 are sweeps)"},
		{"missing", []string{sweep, missing}, false, "open " + missing + ": no such file or directory"}, // unreadable
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := AllSweeps(tc.paths)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("AllSweeps = %v, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("AllSweeps = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if _, err := AllSweeps([]string{missing}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
