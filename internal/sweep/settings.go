package sweep

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/load"
)

// A sweep's settings from typed values: the ladder, the checks of the
// settings beside it and of the clock schedule, the figures every step
// must report, the label and the CloudWatch reader. The command parses
// the flags and turns these errors into its usage errors; the messages
// name the flags because they are what the user reads.

// Defaults of sweep's own settings.
const (
	// DefaultMaxErrorRate is the failed share a step may have and still
	// meet the SLA when none is given: a step where more than 1 % of
	// the requests failed does not meet it, whatever its latencies
	// (issue 29: a server killed mid-sweep gave "60339 failed, SLA pass").
	DefaultMaxErrorRate = 0.01
	// DefaultStepGap is the pause between steps on the clock schedule:
	// room for the previous step's drain (requests in flight when its
	// step duration ends) and the next step's warm-ups, on a server that
	// answers in seconds.
	DefaultStepGap = 30 * time.Second
	// DefaultPercentileMetrics and DefaultMetricPercentiles are what each
	// step reports unless the user chose (ResultFigures): e2el for
	// Little's law, p50/p90/p99 for the step table.
	DefaultPercentileMetrics = "ttft,tpot,itl,e2el"
	DefaultMetricPercentiles = "50,90,99"
)

// Ladders are the three ladder lists as given (comma-separated levels,
// "" = not given): --concurrency, --request-rates and --users.
type Ladders struct{ Concurrency, Rates, Users string }

// Parse is the load kind and levels of the one list given.
func (l Ladders) Parse() (capacity.Kind, []float64, error) {
	var kind capacity.Kind
	var list string
	for _, c := range []struct {
		k capacity.Kind
		v string
	}{{capacity.Concurrency, l.Concurrency}, {capacity.RequestRate, l.Rates}, {capacity.Users, l.Users}} {
		if c.v == "" {
			continue
		}
		if list != "" {
			return "", nil, errors.New("give one of --concurrency, --request-rates or --users, not several")
		}
		kind, list = c.k, c.v
	}
	if list == "" {
		return "", nil, errors.New("sweep needs a ladder: --concurrency 1,2,4,8, --request-rates 1,2,4 or --users 10,50,100")
	}
	var loads []float64
	for _, item := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		if err != nil || v <= 0 || math.IsInf(v, 0) || (kind.Integer() && v != math.Trunc(v)) {
			return "", nil, fmt.Errorf("--%s: %q is not a positive %s", FlagOf(kind), item, map[bool]string{true: "whole number", false: "number"}[kind.Integer()])
		}
		loads = append(loads, v)
	}
	return kind, loads, nil
}

// Loop is the closed loop the ladder runs, as the configuration's notes
// name it ("sweep --concurrency", "sweep --users"); "" for rates.
func (l Ladders) Loop() string {
	switch {
	case l.Concurrency != "":
		return "sweep --concurrency"
	case l.Users != "":
		return "sweep --users"
	}
	return ""
}

// FlagOf is the flag that gives a ladder of kind k.
func FlagOf(k capacity.Kind) string {
	switch k {
	case capacity.Concurrency:
		return "concurrency"
	case capacity.RequestRate:
		return "request-rates"
	}
	return "users"
}

// Parse sets the ladder (Kind, Loads), the SLA and the think time from
// their texts as given (the ladder flags, --sla, --think-time).
func (c *Config) Parse(l Ladders, sla, think string) error {
	var err error
	if c.Kind, c.Loads, err = l.Parse(); err != nil {
		return err
	}
	if c.SLA, err = capacity.ParseSLA(sla); err != nil {
		return fmt.Errorf("--sla: %w", err)
	}
	if c.Think, err = load.ParseThink(think); err != nil {
		return fmt.Errorf("--think-time: %w", err)
	}
	return nil
}

// Given says which of run's settings the user gave beside the ladder
// (not a config file's defaults): some ladders refuse them.
type Given struct {
	// ThinkTime is whether --think-time was given.
	ThinkTime bool
	// MaxConcurrency is whether --max-concurrency was given, Cap its value.
	MaxConcurrency bool
	Cap            int
	// MaxErrorRate is whether --max-error-rate was given, Rate its value
	// (else DefaultMaxErrorRate).
	MaxErrorRate bool
	Rate         float64
}

// Check validates the settings beside the ladder (Kind, Loads and the
// SLA as parsed), then sets MaxErrorRate and adds its error gate to the
// SLA (capacity.SLA.WithErrorGate).
func (c *Config) Check(g Given) error {
	if err := c.check(g); err != nil {
		return err
	}
	c.MaxErrorRate = DefaultMaxErrorRate
	if g.MaxErrorRate {
		c.MaxErrorRate = g.Rate
	}
	c.SLA, c.Gate = c.SLA.WithErrorGate(c.MaxErrorRate)
	return nil
}

func (c *Config) check(g Given) error {
	if c.Refine < 0 || c.PromptsPerStep < 0 || c.StepDuration < 0 || c.SpawnRate < 0 {
		return errors.New("--refine, --prompts-per-step, --step-duration and --spawn-rate must not be negative")
	}
	if c.Kind != capacity.Users && g.ThinkTime {
		return errors.New("--think-time needs --users")
	}
	if c.Kind != capacity.RequestRate && g.MaxConcurrency {
		return fmt.Errorf("sweep --%s keeps each step's load in flight: --max-concurrency %d would hold it at %d (leave it out)", FlagOf(c.Kind), g.Cap, g.Cap)
	}
	if c.RequireLoad < 0 || (c.RequireLoad > 0 && len(c.SLA) == 0) {
		return errors.New("--require-load needs a positive load and --sla (it gates on the largest load under the SLA)")
	}
	return nil
}

// ResultFigures are the percentile metrics and percentiles every step
// must report, from the lists the user gave (comma-separated; nil:
// DefaultPercentileMetrics, DefaultMetricPercentiles): the SLA's own
// added, and p99 for the table.
func ResultFigures(sla capacity.SLA, given, givenPercentiles *string) (metrics, percentiles string) {
	metrics, percentiles = DefaultPercentileMetrics, DefaultMetricPercentiles
	if given != nil {
		metrics = *given
	}
	if givenPercentiles != nil {
		percentiles = *givenPercentiles
	}
	for _, m := range sla.Metrics() {
		if !strings.Contains(","+metrics+",", ","+m+",") {
			metrics += "," + m
		}
	}
	for _, p := range append(sla.Percentiles(), 99) {
		percentiles = addPercentile(percentiles, p)
	}
	return metrics, percentiles
}

// addPercentile appends p to a comma list of percentiles unless present.
func addPercentile(list string, p float64) string {
	want := strconv.FormatFloat(p, 'f', -1, 64)
	for _, x := range strings.Split(list, ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && v == p {
			return list
		}
	}
	return list + "," + want
}

// CheckSchedule validates the clock schedule and worker mode (StartAt,
// Worker; gapGiven is whether --step-gap was given), docs/distributed.md,
// "Sweeps". Workers have no coordinator, so they agree on step
// boundaries by the clock alone: step k starts at StartAt + k ×
// (StepDuration + StepGap). That needs both; and what depends on
// analysing the merged data while the sweep runs (refinement, stopping
// when saturated, --runs auto) cannot be decided by one worker.
func (c *Config) CheckSchedule(gapGiven bool) error {
	if c.StepGap < 0 {
		return errors.New("--step-gap must not be negative")
	}
	if c.StartAt.IsZero() {
		if c.Worker != nil {
			return errors.New("sweep in worker mode needs --start-at: the workers agree on every step's start by the clock (docs/distributed.md)")
		}
		if gapGiven {
			return errors.New("--step-gap needs --start-at (it spaces the steps of a clock-scheduled sweep)")
		}
		return nil
	}
	if c.StepDuration <= 0 {
		return errors.New("sweep with --start-at needs --step-duration: step k starts at start-at + k x (step-duration + step-gap)")
	}
	if c.Worker == nil {
		return nil
	}
	if err := c.checkShares(); err != nil {
		return err
	}
	if c.Repeat.Auto {
		// Each worker sees only its share: when to stop is the merged
		// step's question.
		return errors.New("--runs auto needs the merged data: in worker mode give a fixed --runs K")
	}
	return nil
}

// checkShares refuses, in worker mode, what needs the merged data and
// the loads that cannot give every worker a share.
func (c *Config) checkShares() error {
	if c.Refine > 0 || c.StopWhenSaturated {
		return errors.New("--refine and --stop-when-saturated need the merged data: in worker mode, run llmbench merge on the workers' sweeps, then sweep the loads you want to refine by hand")
	}
	n := c.Worker.Count
	for _, l := range c.Loads {
		if c.Kind.Integer() && int(l) < n {
			return fmt.Errorf("--%s %s cannot be split across %d workers: want at least one each", FlagOf(c.Kind), strconv.FormatFloat(l, 'f', -1, 64), n)
		}
		if !c.Kind.Integer() && c.PromptsPerStep == 0 && math.Ceil(l*c.StepDuration.Seconds()) < float64(n) {
			return fmt.Errorf("--request-rates %s sends fewer requests per --step-duration than there are workers (%d)", strconv.FormatFloat(l, 'f', -1, 64), n)
		}
	}
	return nil
}

// Label names the sweep: label (--label) if given, else the endpoint,
// else the model.
func Label(label string, base *bench.Plan) string {
	if label != "" {
		return label
	}
	if base.Params.EndpointName != "" {
		return base.Params.EndpointName
	}
	return base.Params.ModelID
}

// NewCloudWatch is the reader of each step's instance utilisation
// through read, or, where there is none to read, a reader that only
// warns: a SageMaker endpoint publishes it, except under inference
// components (component set).
func NewCloudWatch(base *bench.Plan, component bool, wait time.Duration, read ReadUtilization) *CloudWatch {
	cw := &CloudWatch{Wait: wait, Read: read}
	switch {
	case base.Kind != bench.SageMaker:
		cw.Skip = "Warning: --cloudwatch reads a SageMaker endpoint's metrics; ignored without --backend sagemaker"
	case component:
		cw.Skip = "Warning: --cloudwatch: inference components publish utilisation under /aws/sagemaker/InferenceComponents, which llmbench does not read; no utilisation per step"
	}
	return cw
}
