package sweep

import (
	"bytes"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
)

// TestStepRequestsCoverSLAPercentiles: a default step holds as many
// requests as the SLA's percentiles need (issue 29: a p99 of 6 requests
// fed the verdict): 100 for a p99, 1,000 for a p99.9, else 8 x load, at
// least 32.
func TestStepRequestsCoverSLAPercentiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind capacity.Kind
		sla  string
		load float64
		want int
	}{
		{"no SLA: 8 x load, at least 32", capacity.Concurrency, "", 2, 32},
		{"no SLA, high load", capacity.Concurrency, "", 64, 512},
		{"p99 TTFT needs 100", capacity.Concurrency, "p99_ttft_ms<500", 2, 100},
		{"p99.9 needs 1,000", capacity.Users, "p99.9_e2el_ms<9000", 2, 1000},
		{"ITL percentiles pool chunks: no need", capacity.Concurrency, "p99_itl_ms<30", 2, 32},
		{"rates: 20 s of the rate, or the SLA's need", capacity.RequestRate, "p99_ttft_ms<500", 1, 100},
		{"rates: 20 s at 10 req/s", capacity.RequestRate, "p99_ttft_ms<500", 10, 200},
	}
	for _, tt := range tests {
		sla, err := capacity.ParseSLA(tt.sla)
		if err != nil {
			t.Fatal(err)
		}
		d := New(Config{Kind: tt.kind, SLA: sla}, &bench.Plan{}, nil, nil)
		if got := d.stepRequests(tt.load); got != tt.want {
			t.Errorf("%s: %d requests, want %d", tt.name, got, tt.want)
		}
	}
}

// TestSweepPrintPlan: the ladder's size and, bounded by time, its length
// are said before the first step (issue 29 item 11).
func TestSweepPrintPlan(t *testing.T) {
	t.Parallel()
	base := &bench.Plan{Requests: make([]backend.Request, 10)}
	sla, _ := capacity.ParseSLA("p99_ttft_ms<500")
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Kind: capacity.Concurrency, SLA: sla, Refine: 2, Loads: []float64{1, 8, 32}},
			"Plan: 3 steps (concurrency 1, 8, 32) of 100-256 requests each, 456 in all, plus up to 2 refinement steps; the time depends on the server (each step's line estimates the rest).\n"},
		{Config{Kind: capacity.Concurrency, SLA: sla, StepDuration: 30 * time.Second, Repeat: Repeat{Runs: 2}, Loads: []float64{10, 20}},
			"Plan: 4 steps (concurrency 10, 20, 2 runs each) of 30s each after their warm-ups: about 2m0s in all.\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		New(tt.cfg, base, nil, &b).printPlan(&b)
		if b.String() != tt.want {
			t.Errorf("got  %q\nwant %q", b.String(), tt.want)
		}
	}
}

// TestVerdictNote: the step line says a load is unresolved once its last
// run is in, and nothing before or for a resolved load.
func TestVerdictNote(t *testing.T) {
	t.Parallel()
	d := New(Config{Repeat: Repeat{Runs: 2}}, &bench.Plan{}, nil, nil)
	d.an = &capacity.Sweep{Steps: []capacity.Row{
		{Load: 1, SLAVerdict: capacity.VerdictPass}, {Load: 2, SLAVerdict: capacity.VerdictUnresolved}}}
	tests := []struct {
		load float64
		run  int
		want string
	}{
		{1, 2, ""},
		{2, 1, ""},
		{2, 2, " (unresolved: its interval straddles a limit)"},
	}
	for _, tt := range tests {
		if got := d.verdictNote(tt.load, tt.run == d.cfg.Repeat.Planned()); got != tt.want {
			t.Errorf("load %v run %d: %q, want %q", tt.load, tt.run, got, tt.want)
		}
	}
}
