package calibrate

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
)

// TestRunInterrupted: Ctrl-C during a repetition says so, not what
// cancelling did to the simulator ("signal: killed"); another failure
// names the load and repetition.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	c := &Config{Streams: []int{1}, TTFT: 1e6, ITL: 1e6, Tokens: 2, Rule: Rule{Requests: 100}, Repeat: 2}
	ctx, cancel := context.WithCancel(t.Context())
	rep := func(context.Context, int, int, int, int) (Repetition, int, error) {
		cancel()
		return Repetition{}, 0, errors.New("the simulator exited with signal: killed")
	}
	_, err := Run(ctx, c, []int{100}, rep, io.Discard)
	if err == nil || err.Error() != "calibrate: interrupted at 1 stream, repetition 1 of 2" {
		t.Errorf("interrupted: error %v", err)
	}
	fail := func(context.Context, int, int, int, int) (Repetition, int, error) {
		return Repetition{}, 0, errors.New("no request succeeded")
	}
	c.Streams = []int{20}
	if _, err := Run(t.Context(), c, []int{100}, fail, io.Discard); err == nil || err.Error() != "calibrate: 20 streams, repetition 1: no request succeeded" {
		t.Errorf("failed: error %v", err)
	}
}

// TestNominal: TTFT then a gap before every token after the first.
func TestNominal(t *testing.T) {
	t.Parallel()
	c := Config{TTFT: 50e6, ITL: 10e6, Tokens: 10}
	if got := c.Nominal(); got != 140e6 {
		t.Errorf("Nominal = %v, want 140ms", got)
	}
}

// TestProcessDefaultBinary: with no --sim-bin the simulator runs from
// this binary, found before any repetition starts.
func TestProcessDefaultBinary(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for bin, want := range map[string]string{"": self, "/usr/bin/true": "/usr/bin/true"} {
		if got, err := simBinary(bin); err != nil || got != want {
			t.Errorf("simBinary(%q) = %q, %v; want %q", bin, got, err, want)
		}
		if run, err := Process(bin, &Config{}); err != nil || run == nil {
			t.Errorf("Process(%q) = %v, %v; want a repetition func", bin, run != nil, err)
		}
	}
}
