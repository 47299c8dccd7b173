package sweep

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/record"
)

// TestLaddersParse: exactly one ladder list, of positive levels (whole
// numbers for the closed loops), each refusal naming its flag.
func TestLaddersParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    Ladders
		kind  capacity.Kind
		loads []float64
		err   string
	}{
		{"concurrency, spaces trimmed", Ladders{Concurrency: "1, 2,4"}, capacity.Concurrency, []float64{1, 2, 4}, ""},
		{"rates may be fractions", Ladders{Rates: "0.5,1"}, capacity.RequestRate, []float64{0.5, 1}, ""},
		{"users", Ladders{Users: "10,50"}, capacity.Users, []float64{10, 50}, ""},
		{"none", Ladders{}, "", nil, "sweep needs a ladder: --concurrency 1,2,4,8, --request-rates 1,2,4 or --users 10,50,100"},
		{"two", Ladders{Concurrency: "1", Users: "2"}, "", nil, "give one of --concurrency, --request-rates or --users, not several"},
		{"a fraction of users", Ladders{Users: "1.5"}, "", nil, `--users: "1.5" is not a positive whole number`},
		{"a fraction of concurrency", Ladders{Concurrency: "1,2.5"}, "", nil, `--concurrency: "2.5" is not a positive whole number`},
		{"a negative rate", Ladders{Rates: "-1"}, "", nil, `--request-rates: "-1" is not a positive number`},
		{"an infinite rate", Ladders{Rates: "inf"}, "", nil, `--request-rates: "inf" is not a positive number`},
		{"zero", Ladders{Concurrency: "0"}, "", nil, `--concurrency: "0" is not a positive whole number`},
		{"an empty item", Ladders{Concurrency: "1,,2"}, "", nil, `--concurrency: "" is not a positive whole number`},
	}
	for _, tt := range tests {
		kind, loads, err := tt.in.Parse()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || kind != tt.kind || !slices.Equal(loads, tt.loads) {
			t.Errorf("%s: %s %v (%v), want %s %v", tt.name, kind, loads, err, tt.kind, tt.loads)
		}
	}
}

// TestCheck: what a sweep refuses beside its ladder.
func TestCheck(t *testing.T) {
	t.Parallel()
	sla, _ := capacity.ParseSLA("p99_ttft_ms<500")
	tests := []struct {
		name string
		cfg  Config
		g    Given
		err  string
	}{
		{"fine", Config{Kind: capacity.Users, SLA: sla, RequireLoad: 10}, Given{ThinkTime: true}, ""},
		{"negative refine", Config{Kind: capacity.Users, Refine: -1}, Given{}, "--refine, --prompts-per-step, --step-duration and --spawn-rate must not be negative"},
		{"negative spawn rate", Config{Kind: capacity.Users, SpawnRate: -1}, Given{}, "--refine, --prompts-per-step, --step-duration and --spawn-rate must not be negative"},
		{"think time without users", Config{Kind: capacity.Concurrency}, Given{ThinkTime: true}, "--think-time needs --users"},
		{"a cap on a closed ladder", Config{Kind: capacity.Concurrency}, Given{MaxConcurrency: true, Cap: 4},
			"sweep --concurrency keeps each step's load in flight: --max-concurrency 4 would hold it at 4 (leave it out)"},
		{"a cap on users", Config{Kind: capacity.Users}, Given{MaxConcurrency: true, Cap: 2},
			"sweep --users keeps each step's load in flight: --max-concurrency 2 would hold it at 2 (leave it out)"},
		{"a cap on rates is theirs", Config{Kind: capacity.RequestRate}, Given{MaxConcurrency: true, Cap: 4}, ""},
		{"require-load without an SLA", Config{Kind: capacity.Users, RequireLoad: 10}, Given{}, "--require-load needs a positive load and --sla (it gates on the largest load under the SLA)"},
		{"negative require-load", Config{Kind: capacity.Users, SLA: sla, RequireLoad: -1}, Given{}, "--require-load needs a positive load and --sla (it gates on the largest load under the SLA)"},
	}
	for _, tt := range tests {
		err := tt.cfg.Check(tt.g)
		if (tt.err == "" && err != nil) || (tt.err != "" && (err == nil || err.Error() != tt.err)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

// TestResultFigures: every step reports what the SLA's terms and the
// table need, added to the lists without repeating what they hold.
func TestResultFigures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sla, metrics, pcts, wantM, wantP string
	}{
		{"", DefaultPercentileMetrics, DefaultMetricPercentiles, "ttft,tpot,itl,e2el", "50,90,99"},
		{"p99.9_itl_ms<30,p95_ttft_ms<200", DefaultPercentileMetrics, DefaultMetricPercentiles, "ttft,tpot,itl,e2el", "50,90,99,95,99.9"},
		{"p99_e2el_ms<9000,error_rate<0.1", "ttft", "95", "ttft,e2el", "95,99"},
		{"p90_ttft_ms<100", "ttft", "90.0", "ttft", "90.0,99"},
	}
	for _, tt := range tests {
		sla, err := capacity.ParseSLA(tt.sla)
		if err != nil {
			t.Fatal(err)
		}
		if m, p := ResultFigures(sla, &tt.metrics, &tt.pcts); m != tt.wantM || p != tt.wantP {
			t.Errorf("%q over %q, %q: %q, %q; want %q, %q", tt.sla, tt.metrics, tt.pcts, m, p, tt.wantM, tt.wantP)
		}
	}
}

// TestResultFiguresDefaults: lists not given are the sweep's defaults,
// each on its own.
func TestResultFiguresDefaults(t *testing.T) {
	t.Parallel()
	sla, _ := capacity.ParseSLA("p95_ttft_ms<200")
	given := "ttft"
	for _, tt := range []struct {
		metrics, pcts *string
		wantM, wantP  string
	}{
		{nil, nil, "ttft,tpot,itl,e2el", "50,90,99,95"},
		{&given, nil, "ttft", "50,90,99,95"},
		{nil, &given, "ttft,tpot,itl,e2el", "ttft,95,99"},
	} {
		if m, p := ResultFigures(sla, tt.metrics, tt.pcts); m != tt.wantM || p != tt.wantP {
			t.Errorf("%v, %v: %q, %q; want %q, %q", tt.metrics, tt.pcts, m, p, tt.wantM, tt.wantP)
		}
	}
}

// TestLaddersLoop: the closed loops a configuration's notes name.
func TestLaddersLoop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		l    Ladders
		want string
	}{{Ladders{Concurrency: "1,2"}, "sweep --concurrency"}, {Ladders{Users: "10"}, "sweep --users"}, {Ladders{Rates: "1"}, ""}} {
		if got := tt.l.Loop(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.l, got, tt.want)
		}
	}
}

// TestParse: the ladder, --sla and --think-time from their texts, each
// error naming its flag.
func TestParse(t *testing.T) {
	t.Parallel()
	var c Config
	if err := c.Parse(Ladders{Users: "10,50"}, "p99_ttft_ms<500", "1s-3s"); err != nil {
		t.Fatal(err)
	}
	if c.Kind != capacity.Users || len(c.Loads) != 2 || len(c.SLA) != 1 || c.Think.Max != 3*time.Second {
		t.Errorf("Parse: %+v", c)
	}
	for _, tt := range []struct {
		l          Ladders
		sla, think string
		err        string
	}{
		{Ladders{}, "", "0", "sweep needs a ladder: --concurrency 1,2,4,8, --request-rates 1,2,4 or --users 10,50,100"},
		{Ladders{Rates: "1"}, "p99_ttft_ms", "0", "--sla: "},
		{Ladders{Rates: "1"}, "", "soon", "--think-time: "},
	} {
		err := (&Config{}).Parse(tt.l, tt.sla, tt.think)
		if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("Parse(%+v, %q, %q) = %v, want %q...", tt.l, tt.sla, tt.think, err, tt.err)
		}
	}
}

// TestCheckErrorGate: Check adds --max-error-rate's term to the SLA,
// the default's when not given, and marks it as the gate.
func TestCheckErrorGate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		g    Given
		want float64
	}{{Given{}, DefaultMaxErrorRate}, {Given{MaxErrorRate: true, Rate: 0.2}, 0.2}, {Given{MaxErrorRate: true}, 0}} {
		sla, _ := capacity.ParseSLA("p99_ttft_ms<500")
		c := Config{Kind: capacity.Users, SLA: sla}
		if err := c.Check(tt.g); err != nil {
			t.Fatal(err)
		}
		want, gate := sla.WithErrorGate(tt.want)
		if c.MaxErrorRate != tt.want || c.Gate != gate || !reflect.DeepEqual(c.SLA, want) {
			t.Errorf("%+v: rate %g gate %v SLA %v; want %g %v %v", tt.g, c.MaxErrorRate, c.Gate, c.SLA, tt.want, gate, want)
		}
	}
}

// TestCheckSchedule: the clock schedule needs --start-at and a step
// length; a worker refuses what needs the merged data and the loads it
// cannot share.
func TestCheckSchedule(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	w := &record.WorkerInfo{Index: 0, Count: 2}
	conc := Config{Kind: capacity.Concurrency, Loads: []float64{2, 4}, StartAt: at, StepDuration: 2 * time.Second, Worker: w}
	with := func(edit func(*Config)) Config { c := conc; edit(&c); return c }
	tests := []struct {
		name     string
		cfg      Config
		gapGiven bool
		err      string
	}{
		{"one process, no schedule", Config{Kind: capacity.Concurrency}, false, ""},
		{"a worker", conc, false, ""},
		{"a scheduled single process", with(func(c *Config) { c.Worker = nil; c.Refine = 2 }), false, ""},
		{"a negative gap", with(func(c *Config) { c.StepGap = -time.Second }), true, "--step-gap must not be negative"},
		{"a worker without the clock", with(func(c *Config) { c.StartAt = time.Time{} }), false,
			"sweep in worker mode needs --start-at: the workers agree on every step's start by the clock (docs/distributed.md)"},
		{"a gap without the clock", Config{Kind: capacity.Concurrency}, true, "--step-gap needs --start-at (it spaces the steps of a clock-scheduled sweep)"},
		{"the clock without a step length", with(func(c *Config) { c.StepDuration = 0 }), false,
			"sweep with --start-at needs --step-duration: step k starts at start-at + k x (step-duration + step-gap)"},
		{"refine in a worker", with(func(c *Config) { c.Refine = 1 }), false,
			"--refine and --stop-when-saturated need the merged data: in worker mode, run llmbench merge on the workers' sweeps, then sweep the loads you want to refine by hand"},
		{"stop when saturated in a worker", with(func(c *Config) { c.StopWhenSaturated = true }), false,
			"--refine and --stop-when-saturated need the merged data: in worker mode, run llmbench merge on the workers' sweeps, then sweep the loads you want to refine by hand"},
		{"a load below the workers", with(func(c *Config) { c.Loads = []float64{1, 2} }), false,
			"--concurrency 1 cannot be split across 2 workers: want at least one each"},
		{"a rate too low for the workers", with(func(c *Config) { c.Kind = capacity.RequestRate; c.Loads = []float64{0.5} }), false,
			"--request-rates 0.5 sends fewer requests per --step-duration than there are workers (2)"},
		{"a low rate with a request count", with(func(c *Config) {
			c.Kind, c.Loads, c.PromptsPerStep = capacity.RequestRate, []float64{0.5}, 10
		}), false, ""},
		{"runs auto in a worker", with(func(c *Config) { c.Repeat.Auto = true }), false,
			"--runs auto needs the merged data: in worker mode give a fixed --runs K"},
		{"runs auto without workers", with(func(c *Config) { c.Repeat.Auto = true; c.Worker = nil }), false, ""},
	}
	for _, tt := range tests {
		err := tt.cfg.CheckSchedule(tt.gapGiven)
		if (tt.err == "" && err != nil) || (tt.err != "" && (err == nil || err.Error() != tt.err)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

// TestLabelAndCloudWatch: the sweep is named by --label, else the
// endpoint, else the model; CloudWatch is read only for a SageMaker
// endpoint without inference components.
func TestLabelAndCloudWatch(t *testing.T) {
	t.Parallel()
	sm := &bench.Plan{Kind: bench.SageMaker}
	sm.Params.EndpointName, sm.Params.ModelID = "ep", "m"
	oa := &bench.Plan{Kind: bench.OpenAICompletions}
	oa.Params.ModelID = "m"
	for _, c := range []struct {
		label string
		base  *bench.Plan
		want  string
	}{{"mine", sm, "mine"}, {"", sm, "ep"}, {"", oa, "m"}} {
		if got := Label(c.label, c.base); got != c.want {
			t.Errorf("Label(%q, %q): %q, want %q", c.label, c.base.Params.EndpointName, got, c.want)
		}
	}
	for _, c := range []struct {
		base      *bench.Plan
		component bool
		skip      string
	}{
		{sm, false, ""},
		{sm, true, "Warning: --cloudwatch: inference components publish utilisation under /aws/sagemaker/InferenceComponents, which llmbench does not read; no utilisation per step"},
		{oa, false, "Warning: --cloudwatch reads a SageMaker endpoint's metrics; ignored without --backend sagemaker"},
	} {
		cw := NewCloudWatch(c.base, c.component, time.Minute, nil)
		if cw.Skip != c.skip || cw.Wait != time.Minute {
			t.Errorf("kind %v, component %v: skip %q, wait %v; want %q, 1m", c.base.Kind, c.component, cw.Skip, cw.Wait, c.skip)
		}
	}
}
