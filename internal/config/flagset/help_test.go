package flagset

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestSuggest: the closest flag under distance 4 wins, the first in the
// flag set's (sorted) order on a tie; nothing close gives "".
func TestSuggest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
	}{
		{"num-prompt", "num-prompts"},               // one deletion
		{"modle", "model"},                          // a swap is two edits
		{"metric-percentile", "metric-percentiles"}, // prefix of a long name
		{"strem", "stream"},                         // one insertion
		{"self-timd", "self-timed"},                 // skipped-for-config flags are still flags
		{"xyz", ""},                                 // distance ≥ 4 from every flag
		{"goodputxxxx", ""},                         // four edits: too far
		{"goodputxxx", "goodput"},                   // three edits: close enough
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, _ := newTestFlags() // each its own: VisitAll sorts in place
			if got := Suggest(fs, tc.name); got != tc.want {
				t.Errorf("Suggest(%q) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

// TestSuggestTie: at equal distance the first flag in order wins.
func TestSuggestTie(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("port-b", "", "")
	fs.String("port-a", "", "")
	if got := Suggest(fs, "port-c"); got != "port-a" {
		t.Errorf("Suggest(port-c) = %q, want port-a (sorted first)", got)
	}
}

// TestTerminalWidth: a writer that is no terminal takes $COLUMNS, else 80,
// never under 60.
func TestTerminalWidth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, columns string
		want          int
	}{
		{"unset", "", 80},         // the default
		{"wide", "132", 132},      // $COLUMNS as given
		{"narrow", "40", 60},      // raised to the floor
		{"not a number", "x", 80}, // ignored
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string {
				if k == "COLUMNS" {
					return tc.columns
				}
				return ""
			}
			if got := TerminalWidth(&bytes.Buffer{}, getenv); got != tc.want {
				t.Errorf("TerminalWidth with COLUMNS=%q = %d, want %d", tc.columns, got, tc.want)
			}
		})
	}
}

// TestWriteHelp: the description and examples print only when given, the
// flags in their sections, the underscore note last.
func TestWriteHelp(t *testing.T) {
	t.Parallel()
	sections := "Endpoint and authentication:\n      --model string   the model\n\n" +
		"Load:\n      --max-concurrency int   requests in flight\n\n" +
		"Underscore spellings work too (--max_concurrency). Docs: README.md, docs/.\n"
	for _, tc := range []struct {
		name string
		h    Help
		want string
	}{
		{"usage only", Help{Usage: "llmbench run [flags]"}, // no Long, no Example
			"Usage:\n  llmbench run [flags]\n\n" + sections},
		{"all", Help{Long: "\nRun one benchmark.\n", Usage: "llmbench run [flags]", Example: "  llmbench run"}, // Long trimmed
			"Run one benchmark.\n\nUsage:\n  llmbench run [flags]\n\nExamples:\n  llmbench run\n\n" + sections},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			fs.String("model", "", "the model")
			fs.Int("max-concurrency", 0, "requests in flight")
			tc.h.Flags = fs
			var b strings.Builder
			WriteHelp(&b, tc.h, 80)
			if got := b.String(); got != tc.want {
				t.Errorf("WriteHelp:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
