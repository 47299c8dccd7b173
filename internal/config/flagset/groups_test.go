package flagset

import (
	"reflect"
	"testing"

	"github.com/spf13/pflag"
)

// TestSections: flags go to their listed group, else by prefix, else
// "Other"; sections print in the fixed order and only when they hold a
// flag.
func TestSections(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	for _, name := range []string{"zzz-unknown", "sim-preset", "server-metrics", "course", "top-p", "sonnet-input-len",
		"no-self-timed", "max-concurrency", "runs", "model", "region"} {
		fs.String(name, "", "")
	}
	type sec struct {
		title string
		flags []string
	}
	var got []sec
	for _, s := range Sections(fs) {
		var names []string
		s.Flags.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		got = append(got, sec{s.Title, names})
	}
	want := []sec{
		{"Endpoint and authentication", []string{"model"}},
		{"SageMaker", []string{"region"}},
		{"Load", []string{"max-concurrency", "runs"}},
		{"Dataset", []string{"no-self-timed", "sonnet-input-len"}},
		{"Sampling", []string{"top-p"}},
		{"Project configuration", []string{"course"}},
		{"Server metrics", []string{"server-metrics"}},
		{"Simulator", []string{"sim-preset"}},
		{"Other", []string{"zzz-unknown"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sections:\n got %v\nwant %v", got, want)
	}
}
