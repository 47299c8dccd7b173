package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
)

// fakeSteps plays a server whose TTFT grows with the load: ttft(c)
// seconds at concurrency c, every request failing where it is negative,
// or the step refused with err where that returns one.
type fakeSteps struct {
	ttft    func(c int) float64
	err     func(c int) error
	phases  []string
	records []string
}

func (f *fakeSteps) RunStep(_ context.Context, p *bench.Plan, phase, records string) (*bench.Outcome, Step, error) {
	f.phases = append(f.phases, phase)
	f.records = append(f.records, records)
	c := *p.Params.MaxConcurrency
	if f.err != nil {
		if err := f.err(c); err != nil {
			return nil, nil, err
		}
	}
	o := &bench.Outcome{Start: time.Unix(1_700_000_000, 0), Duration: time.Duration(len(p.Requests)) * 10 * time.Millisecond}
	t := f.ttft(c)
	for i := range p.Requests {
		n := 10
		r := record.Record{Index: i, Success: t >= 0, PromptLen: 8, OutputTokens: &n, TTFT: t,
			ITL: slices.Repeat([]float64{0.01}, 9), Latency: t + 0.09, StartTime: float64(i) * 0.01}
		if t < 0 {
			r = record.Record{Index: i, Error: "HTTP 500:\nboom", StartTime: float64(i) * 0.01}
		}
		o.Records = append(o.Records, r)
	}
	return o, fakeStep{}, nil
}

type fakeStep struct{}

func (fakeStep) Close(*bench.Plan, *bench.Outcome, *bench.Summary) (Steady, error) {
	return Steady{}, nil
}
func (fakeStep) SetResult(*report.Object)       {}
func (fakeStep) Server() *servermetrics.Summary { return nil }

// TestDriverRun: the driver runs the ladder in order, bisects under
// --refine, saves each step's result under its name, keeps the records
// only when asked, gates on --require-load, and stops when the server
// stops answering.
func TestDriverRun(t *testing.T) {
	t.Parallel()
	sla, err := capacity.ParseSLA("p99_ttft_ms<250")
	if err != nil {
		t.Fatal(err)
	}
	base := &bench.Plan{Requests: make([]backend.Request, 4), Params: record.Params{PercentileMetrics: "ttft,tpot,itl,e2el", MetricPercentiles: "50,90,99"}}
	grows := func(c int) float64 { return 0.05 * float64(c) }
	tests := []struct {
		name        string
		cfg         Config
		steps       *fakeSteps
		phases      []string
		dead, short string
		maxLoad     float64
	}{
		{"ladder and bisection", Config{Refine: 2, RequireLoad: 8, PromptsPerStep: 1000}, &fakeSteps{ttft: grows},
			[]string{"concurrency-1", "concurrency-2", "concurrency-4", "concurrency-8", "concurrency-6", "concurrency-5"},
			"", "--require-load 8: the largest concurrency under the SLA is 4", 4},
		{"--runs 2", Config{Repeat: Repeat{Runs: 2}, KeepRecords: true}, &fakeSteps{ttft: grows},
			[]string{"concurrency-1-run1", "concurrency-1-run2", "concurrency-2-run1", "concurrency-2-run2", "concurrency-4-run1", "concurrency-4-run2", "concurrency-8-run1", "concurrency-8-run2"},
			"", "", 4},
		{"nothing answers at 4", Config{}, &fakeSteps{ttft: func(c int) float64 { return map[bool]float64{true: -1, false: grows(c)}[c >= 4] }},
			[]string{"concurrency-1", "concurrency-2", "concurrency-4"},
			"step 3 of 4: concurrency 4: all 100 requests failed; first error: HTTP 500: boom", "", 2},
		{"the endpoint fails at 8", Config{}, &fakeSteps{ttft: grows, err: func(c int) error {
			if c == 8 {
				return &bench.EndpointError{N: 3, Class: "connection refused", First: "dial tcp: connection refused"}
			}
			return nil
		}}, []string{"concurrency-1", "concurrency-2", "concurrency-4", "concurrency-8"}, "step 4 of 4: concurrency 8: ", "", 4},
	}
	for _, tt := range tests {
		cfg := tt.cfg
		cfg.Kind, cfg.SLA, cfg.Loads, cfg.StepWarmup = capacity.Concurrency, sla, []float64{1, 2, 4, 8}, 0
		cfg.ResultDir, cfg.Label, cfg.Date = t.TempDir(), "m", "20261202-000000"
		var errw bytes.Buffer
		d := New(cfg, base, tt.steps, &errw)
		if err := d.MakeDir(); err != nil {
			t.Fatal(err)
		}
		res, err := d.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, errw.String())
		}
		if !slices.Equal(tt.steps.phases, tt.phases) {
			t.Errorf("%s: steps %v, want %v\n%s", tt.name, tt.steps.phases, tt.phases, errw.String())
		}
		if !strings.HasPrefix(res.Dead, tt.dead) || (tt.dead == "") != (res.Dead == "") {
			t.Errorf("%s: dead %q, want %q", tt.name, res.Dead, tt.dead)
		}
		if res.Shortfall != tt.short {
			t.Errorf("%s: shortfall %q, want %q", tt.name, res.Shortfall, tt.short)
		}
		if ml := res.Sweep.MaxLoadUnderSLA.Load; ml == nil || *ml != tt.maxLoad {
			t.Errorf("%s: largest load under the SLA %v, want %v\n%s", tt.name, ml, tt.maxLoad, errw.String())
		}
		if tt.dead != "" && !strings.HasPrefix(res.Sweep.Verdict, "the server stopped answering (") {
			t.Errorf("%s: verdict %q", tt.name, res.Sweep.Verdict)
		}
		for i, ph := range tt.steps.phases {
			b, err := os.ReadFile(filepath.Join(d.Dir(), ph+".json"))
			if err != nil && res.Dead == "" {
				t.Errorf("%s: %v", tt.name, err)
			}
			if runs := bytes.Contains(b, []byte(`"runs": [{`)); runs != (cfg.Repeat.Runs > 1) {
				t.Errorf("%s: %s has llmbench.runs: %v", tt.name, ph, runs)
			}
			want := ""
			if cfg.KeepRecords {
				want = filepath.Join(d.Dir(), ph+".records.jsonl")
			}
			if tt.steps.records[i] != want {
				t.Errorf("%s: records %q, want %q", tt.name, tt.steps.records[i], want)
			}
		}
	}
}
