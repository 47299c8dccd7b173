package config

import (
	"errors"
	"os"
	"testing"
)

// TestChoose: a named file wins, --no-config means none, else
// ./config.yaml when present (with the note); contradictions are
// ChoiceErrors. Not parallel: it changes the working directory.
func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name      string
		c         Choice
		present   bool // ./config.yaml exists
		wantPath  string
		wantNote  string
		wantError string // a *ChoiceError's message
	}{
		{"named", Choice{Path: "my.yaml", Given: true}, true, "my.yaml", "", ""}, // --config beats ./config.yaml, silently
		{"found", Choice{}, true, DefaultFile, "Using config.yaml (--no-config ignores it)", ""},
		{"none there", Choice{}, false, "", "", ""},             // vLLM's defaults
		{"no-config", Choice{NoConfig: true}, true, "", "", ""}, // ignores ./config.yaml
		{"both", Choice{Path: "my.yaml", Given: true, NoConfig: true}, false, // contradiction
			"", "", "--config and --no-config: choose one"},
		{"empty", Choice{Given: true}, true, "", "", "--config needs a file (use --no-config for none)"}, // --config=""
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.present {
				if err := os.WriteFile(dir+"/"+DefaultFile, []byte("benchmark: {}\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			path, note, err := Choose(tc.c)
			var ce *ChoiceError
			switch {
			case tc.wantError != "":
				if !errors.As(err, &ce) || err.Error() != tc.wantError {
					t.Fatalf("Choose(%+v) error = %v, want ChoiceError %q", tc.c, err, tc.wantError)
				}
			case err != nil:
				t.Fatalf("Choose(%+v): %v", tc.c, err)
			}
			if path != tc.wantPath || note != tc.wantNote {
				t.Errorf("Choose(%+v) = %q, %q; want %q, %q", tc.c, path, note, tc.wantPath, tc.wantNote)
			}
		})
	}
}
