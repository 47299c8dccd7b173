package calibrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	ok := Config{Streams: []int{1, 100}, TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond, Tokens: 10,
		Rule: Rule{Requests: 100, MinTime: 2 * time.Second}, Repeat: 3}
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	tests := []struct {
		name string
		c    Config
		want []int  // when err is ""
		err  string // the whole message
	}{
		// 140 ms per request: 2 s is 15 waves.
		{"the rule's requests", ok, []int{100, 1500}, ""},
		{"no load", with(func(c *Config) { c.Streams = nil }), nil, "--streams needs at least one load, --ttft and --itl must not be negative"},
		{"negative ITL", with(func(c *Config) { c.ITL = -1 }), nil, "--streams needs at least one load, --ttft and --itl must not be negative"},
		{"one token", with(func(c *Config) { c.Tokens = 1 }), nil, "--tokens 1: want at least 2 (the ITL error needs a gap between two tokens)"},
		{"no repetition", with(func(c *Config) { c.Repeat = 0 }), nil, "--requests and --repeat need at least 1, --min-time must not be negative"},
		{"no request", with(func(c *Config) { c.Rule.Requests = 0 }), nil, "--requests and --repeat need at least 1, --min-time must not be negative"},
		{"no stream", with(func(c *Config) { c.Streams = []int{1, 0} }), nil, "--streams 0: want 1..2000"},
		{"too many streams", with(func(c *Config) { c.Streams = []int{2001} }), nil, "--streams 2001: want 1..2000"},
		{"too many requests", with(func(c *Config) { c.Streams = []int{200} }), nil,
			"--streams 200 with --min-time 2s at 140ms per request needs 3000 requests per repetition, more than 2000; lower --min-time or raise --ttft/--itl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.Check(2000)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Check = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestSave: the saved file is WriteJSON's, mode 0644, and replaces what
// the path held.
func TestSave(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cal.json")
	if err := os.WriteFile(path, []byte("old, longer than the new content will be, surely"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Calibration{TTFTMs: 50, Tokens: 10, Rows: []Row{{Streams: 1}}}
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	var back Calibration
	if err != nil || json.Unmarshal(b, &back) != nil || back.TTFTMs != 50 || len(back.Rows) != 1 || !strings.HasPrefix(string(b), "{\n  \"sim_ttft_ms\": 50,") {
		t.Errorf("saved %q (%v)", b, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v), want 0644", st.Mode(), err)
	}
	if err := Save(filepath.Join(t.TempDir(), "no", "cal.json"), c); err == nil {
		t.Error("Save into a missing folder succeeded")
	}
}
