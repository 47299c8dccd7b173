// Package sweep drives a capacity sweep: the ladder of loads and the
// checks of a sweep's settings (settings.go), --runs repetition,
// --refine's lengthening and bisection, each step's plan and row, the
// analysis at the end and the files that keep it (docs/capacity.md). It
// does not parse flags nor know how a step is wired to the terminal, the
// records file or the server's metrics: the command gives it typed
// values, a Config and a Stepper, and chooses the exit code from its
// Result. It also drives run --runs, one load's runs without the ladder
// (Repeat.Run, the command giving a Runner).
package sweep

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
	"github.com/llmbench/llmbench/internal/stats"
)

// Config is a sweep's settings, resolved and validated by the command.
type Config struct {
	Kind  capacity.Kind
	Loads []float64
	// SLA includes the error_rate gate when Gate is set.
	SLA capacity.SLA
	// Gate is whether the SLA's error_rate term is --max-error-rate's
	// (MaxErrorRate), so the verdict states it.
	Gate         bool
	MaxErrorRate float64
	Think        load.Think
	SpawnRate    float64
	Seed         uint64
	// StepDuration bounds each step by time (0 = by requests).
	StepDuration   time.Duration
	PromptsPerStep int
	// StepWarmup is the warm-ups per step (-1 = the load, at most 64).
	StepWarmup        int
	StopWhenSaturated bool
	Refine            int
	// RequireLoad, when > 0, is the smallest acceptable largest load
	// under the SLA (Result.Shortfall).
	RequireLoad float64
	// StartAt and StepGap are the clock schedule: step k starts at
	// StartAt + k × (StepDuration + StepGap); StartAt zero = none.
	StartAt time.Time
	StepGap time.Duration
	// Worker is this worker's place in a distributed sweep (nil = one
	// process).
	Worker *record.WorkerInfo
	Repeat Repeat
	// ResultDir, Label and Date name the sweep file (Path).
	ResultDir, Label, Date string
	// KeepRecords keeps each step's per-request records beside its result.
	KeepRecords bool
	Price       *capacity.Pricing
	// ExplainKnee asks the analysis to explain the knee from the server's
	// metrics; SharedPrefixes says the dataset shares prompt prefixes.
	ExplainKnee, SharedPrefixes bool
	// CloudWatch, when set, reads each step's instance utilisation.
	CloudWatch *CloudWatch
}

// Repeat is --runs K|auto with --ci-width and --max-runs.
type Repeat struct {
	Runs    int // K (0 counts as 1)
	Auto    bool
	CIWidth float64
	MaxRuns int
}

// MostInFlight is the most requests a step of the sweep can hold in
// flight, for the open-file check before anything is sent
// (host.EnsureFileLimit): the largest load of a concurrency or users
// ladder (refinement only bisects between its loads; a worker's share is
// smaller), and for a rate ladder capCount, run's --max-concurrency (0:
// none). An uncapped open loop holds rate × latency, which only the
// server decides: 0, nothing to check.
func (c *Config) MostInFlight(capCount int) int {
	if c.Kind == capacity.RequestRate {
		return capCount
	}
	most := 0.0
	for _, l := range c.Loads {
		most = max(most, l)
	}
	return int(most)
}

// Planned is the most runs of one load: K, or MaxRuns under auto.
func (r Repeat) Planned() int {
	if r.Auto {
		return r.MaxRuns
	}
	return max(1, r.Runs)
}

// Next says, after the runs whose figures are figs, whether to make
// another, and under auto the convergence record so far (nil for K).
func (r Repeat) Next(figs []map[string]float64, deciding []string) (bool, *stats.Convergence) {
	if !r.Auto {
		return len(figs) < r.Runs, nil
	}
	c, done := stats.Converge(figs, deciding, r.CIWidth, r.MaxRuns)
	return !done, &c
}

// CloudWatch reads the instance utilisation of a SageMaker endpoint.
type CloudWatch struct {
	// Skip, when not "", is the warning printed instead of reading.
	Skip string
	Wait time.Duration
	Read ReadUtilization
}

// ReadUtilization reads an endpoint's instance utilisation between start
// and end, waiting up to wait for CloudWatch to publish it.
type ReadUtilization func(ctx context.Context, start, end time.Time, wait time.Duration) (*cloudwatch.UtilizationSeries, error)

// Stepper is what only the command can do for a step: run its plan with
// the progress bar, the live series (under phase), the records file
// (at records; "" = none) and the server's metrics.
type Stepper interface {
	RunStep(ctx context.Context, p *bench.Plan, phase, records string) (*bench.Outcome, Step, error)
}

// Step is a step that ran, as the command wired it.
type Step interface {
	// Close cross-checks the server's view against the summary, closes
	// the records file and returns the step's steady state.
	Close(p *bench.Plan, o *bench.Outcome, sum *bench.Summary) (Steady, error)
	// SetResult adds the server's metrics to the step's saved result.
	SetResult(obj *report.Object)
	// Server is the server's summary for the row (nil = not read).
	Server() *servermetrics.Summary
}

// Steady is a step's steady_state: Write is whether its result has the
// key at all, Value its object (nil = null).
type Steady struct {
	Write bool
	Value *metrics.SteadyState
}
