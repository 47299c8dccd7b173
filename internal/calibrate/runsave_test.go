package calibrate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAndSave: the calibration is saved only when asked and the last
// line says where; a failed run saves nothing; a failed save names
// --save.
func TestRunAndSave(t *testing.T) {
	t.Parallel()
	ok := func(_ context.Context, _, requests, _, _ int) (Repetition, int, error) {
		return Repetition{Requests: requests, Errors: Errors{Matched: requests, TTFTMeanMs: 0.5}, Verdict: "valid"}, 2, nil
	}
	fail := func(context.Context, int, int, int, int) (Repetition, int, error) {
		return Repetition{}, 0, errors.New("no request succeeded")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		run      RepetitionFunc
		save     string
		wantErr  string // the error's start; "" for none
		wantLine string // the output's last line
		wantFile bool
	}{
		{"no save", ok, "", "", "(of the loads tried, on 2 cores; the timed runs took 0.0 s)", false}, // the table only
		{"saved", ok, filepath.Join(dir, "cal.json"), "", "Calibration saved to " + filepath.Join(dir, "cal.json"), true},
		{"run fails", fail, filepath.Join(dir, "never.json"), "calibrate: 1 stream, repetition 1: no request succeeded", "", false},
		{"save fails", ok, filepath.Join(dir, "missing", "cal.json"), "calibrate: --save: ", "", false}, // no such folder
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &Config{Streams: []int{1}, TTFT: 1e6, ITL: 1e6, Tokens: 2, Rule: Rule{Requests: 1}, Repeat: 1}
			var out bytes.Buffer
			err := RunAndSave(t.Context(), c, []int{1}, tc.run, &out, tc.save)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to start %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			default:
				lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
				if last := lines[len(lines)-1]; last != tc.wantLine {
					t.Errorf("last line %q, want %q", last, tc.wantLine)
				}
			}
			if tc.save == "" {
				return
			}
			data, err := os.ReadFile(tc.save)
			if got := err == nil; got != tc.wantFile {
				t.Fatalf("file %s written: %v, want %v", tc.save, got, tc.wantFile)
			}
			if tc.wantFile && !bytes.Contains(data, []byte(`"rows"`)) {
				t.Errorf("saved file holds no rows: %s", data)
			}
		})
	}
}
