package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/record"
)

// idSteps is fakeSteps that keeps every request id sent and plays
// Ctrl-C during the step at load interruptAt (0: never).
type idSteps struct {
	fakeSteps
	ids         []string
	interruptAt int
}

func (f *idSteps) RunStep(ctx context.Context, p *bench.Plan, phase, records string) (*bench.Outcome, Step, error) {
	for _, r := range p.Requests {
		f.ids = append(f.ids, r.ID)
	}
	o, st, err := f.fakeSteps.RunStep(ctx, p, phase, records)
	if err == nil && *p.Params.MaxConcurrency == f.interruptAt {
		o.Interrupted, o.Records = true, o.Records[:3]
	}
	return o, st, err
}

// sweepOf runs a concurrency sweep over loads with steps, as the
// command would, and returns the driver and its result.
func sweepOf(t *testing.T, cfg Config, steps Stepper, loads ...float64) (*Driver, *Result, string, error) {
	t.Helper()
	sla, err := capacity.ParseSLA("p99_ttft_ms<250")
	if err != nil {
		t.Fatal(err)
	}
	base := &bench.Plan{IDPrefix: "bench-0a1b2c3d-", Requests: make([]backend.Request, 4),
		Params: record.Params{PercentileMetrics: "ttft,tpot,itl,e2el", MetricPercentiles: "50,90,99"}}
	cfg.Kind, cfg.SLA, cfg.Loads, cfg.StepWarmup = capacity.Concurrency, sla, loads, 0
	cfg.ResultDir, cfg.Label, cfg.Date = t.TempDir(), "m", "20261202-000000"
	var errw strings.Builder
	d := New(cfg, base, steps, &errw)
	if err := d.MakeDir(); err != nil {
		t.Fatal(err)
	}
	res, err := d.Run(context.Background())
	return d, res, errw.String(), err
}

// TestStepIDsUnique: every request of a sweep has its own id, whatever
// the step, its run or its lengthening: the prefix, the step's name and
// the index (docs/records.md, "Joining runs and server logs").
func TestStepIDsUnique(t *testing.T) {
	t.Parallel()
	grows := func(c int) float64 { return 0.05 * float64(c) }
	for _, c := range []struct {
		name  string
		cfg   Config
		first string // the first request's id
	}{
		{"one run per load", Config{PromptsPerStep: 5}, "bench-0a1b2c3d-concurrency-1-0"},
		{"--runs 2: each run its own ids", Config{PromptsPerStep: 5, Repeat: Repeat{Runs: 2}}, "bench-0a1b2c3d-concurrency-1-run1-0"},
		{"--refine bisects and lengthens", Config{PromptsPerStep: 5, Refine: 3}, "bench-0a1b2c3d-concurrency-1-0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			steps := &idSteps{fakeSteps: fakeSteps{ttft: grows}}
			if _, _, errw, err := sweepOf(t, c.cfg, steps, 1, 2, 4, 8); err != nil {
				t.Fatalf("%v\n%s", err, errw)
			}
			seen := map[string]bool{}
			for _, id := range steps.ids {
				if seen[id] {
					t.Fatalf("id %q sent twice (%d ids: %v)", id, len(steps.ids), steps.ids)
				}
				seen[id] = true
			}
			if steps.ids[0] != c.first {
				t.Errorf("first id %q, want %q", steps.ids[0], c.first)
			}
		})
	}
}

// idRunner is fakeRunner that keeps each run's request ids.
type idRunner struct {
	fakeRunner
	ids [][]string
}

func (f *idRunner) RunOnce(ctx context.Context, p *bench.Plan, k int) (*bench.Outcome, *bench.Summary, string, error) {
	var ids []string
	for _, r := range p.Requests {
		ids = append(ids, r.ID)
	}
	f.ids = append(f.ids, ids)
	return f.fakeRunner.RunOnce(ctx, p, k)
}

// TestRepeatRunIDs: each run of run --runs sends its own ids, the run's
// number after the prefix ("bench-0a1b2c3d-run2-1"), so a server log
// line names one request of one run.
func TestRepeatRunIDs(t *testing.T) {
	t.Parallel()
	p := &bench.Plan{IDPrefix: "bench-0a1b2c3d-", Requests: []backend.Request{{Index: 0, ID: "bench-0a1b2c3d-0"}, {Index: 1, ID: "bench-0a1b2c3d-1"}}}
	r := &idRunner{fakeRunner: fakeRunner{tput: []float64{100, 100, 100}}}
	if _, err := (Repeat{Runs: 3}).Run(t.Context(), p, nil, r, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	for k, ids := range r.ids {
		for i, id := range ids {
			if want := fmt.Sprintf("bench-0a1b2c3d-run%d-%d", k+1, i); id != want {
				t.Errorf("run %d, request %d: id %q, want %q", k+1, i, id, want)
			}
		}
	}
}
