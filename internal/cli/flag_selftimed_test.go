package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/dataset"
)

func TestTraceDatasetFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) dataset.Config {
		t.Helper()
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		var f runFlags
		bindRunFlags(fs, &f)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return f.ds
	}
	yes, no := true, false
	for _, tc := range []struct {
		args []string
		want *bool
	}{
		{nil, nil}, // the dataset decides (on for timed_trace)
		{[]string{"--self-timed"}, &yes},
		{[]string{"--no-self-timed"}, &no},
		{[]string{"--self-timed=false"}, &no},
		{[]string{"--self-timed", "--no-self-timed"}, &no}, // last wins, as in argparse
	} {
		if diff := cmp.Diff(tc.want, parse(tc.args...).SelfTimed); diff != "" {
			t.Errorf("%v: SelfTimed (-want +got):\n%s", tc.args, diff)
		}
	}
	d := parse("--dataset-name", "timed_trace", "--timed-trace-chunk-hash-size", "512", "--timed-trace-sec-multiplier", "0.001",
		"--timed-trace-label-timestamp", "ts", "--timed-trace-label-input-length", "in", "--timed-trace-label-output-length", "out",
		"--timed-trace-label-hash-ids", "h", "--sonnet-input-len", "600", "--sonnet-output-len", "50", "--sonnet-prefix-len", "100")
	got := []any{d.Name, d.TimedTraceChunkHashSize, d.TimedTraceSecMultiplier, d.TimedTraceLabelTimestamp, d.TimedTraceLabelInputLength,
		d.TimedTraceLabelOutputLength, d.TimedTraceLabelHashIDs, d.SonnetInputLen, d.SonnetOutputLen, d.SonnetPrefixLen}
	want := []any{"timed_trace", 512, 0.001, "ts", "in", "out", "h", 600, 50, 100}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	// vLLM's defaults.
	d = parse()
	def := dataset.DefaultConfig()
	if d.TimedTraceChunkHashSize != def.TimedTraceChunkHashSize || d.TimedTraceSecMultiplier != def.TimedTraceSecMultiplier ||
		d.TimedTraceLabelHashIDs != def.TimedTraceLabelHashIDs || d.SonnetInputLen != def.SonnetInputLen || d.SonnetPrefixLen != def.SonnetPrefixLen {
		t.Errorf("defaults differ from dataset.DefaultConfig: %+v", d)
	}
}
