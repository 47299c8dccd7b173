package cli

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/cloudwatch/cwtest"
	"github.com/llmbench/llmbench/internal/sim"
)

// batchingSim starts a simulator that streams to at most slots requests
// at once, 20 ms per token whatever the batch: past its capacity a
// request waits for a slot, which p90 TTFT shows at once.
func batchingSim(t *testing.T, slots int) string {
	srv := startSim(t, func(c *sim.Config) {
		p, _ := sim.LookupPreset("fast")
		*c = c.WithPreset(p)
		c.Mode = sim.ModeBatching
		c.Batching.MaxNumSeqs = slots
		c.Batching.DecodeBase = 20 * time.Millisecond
		c.Batching.DecodePerSeq = 0
		c.Batching.DecodePerKVToken = 0
	})
	return srv.URL
}

// instance is one simulated instance type of the choice test.
type instance struct {
	label    string
	slots    int     // the simulator's batch: its capacity in concurrent users
	price    float64 // USD per hour
	ladder   string
	wantLoad float64 // max load under the SLA; 0 = never meets it
}

// TestCompareRecommendsInstance: two simulated instances of different
// capacity and price, and a third too small for the SLA, are swept on
// loopback; compare --need-users recommends the one whose instances cost
// least for the need, with the counts and costs the test recomputes from
// the sweep files, and lists the third as never meeting the SLA.
func TestCompareRecommendsInstance(t *testing.T) {
	t.Parallel()
	// 32 tokens at 20 ms: a request that waits for a slot waits ~640 ms,
	// against an SLA of 300 ms on p90 (see TestSweepFindsCapacity).
	instances := []instance{
		{"small", 4, 1.0, "2,4,8", 4},
		{"large", 8, 1.5, "4,8,16", 8},
		{"tiny", 1, 0.3, "2,4", 0}, // cheapest, but queues from the first step
	}
	dir := t.TempDir()
	paths := make([]string, len(instances))
	sweeps := make([]*capacity.Sweep, len(instances))
	done := make(chan struct{}, len(instances))
	for i, in := range instances {
		go func() {
			defer func() { done <- struct{}{} }()
			paths[i], sweeps[i] = sweepInstance(t, filepath.Join(dir, in.label), in)
		}()
	}
	for range instances {
		<-done
	}
	if t.Failed() {
		t.FailNow()
	}
	for i, in := range instances {
		s := sweeps[i]
		got := 0.0
		if s.MaxLoadUnderSLA.Load != nil {
			got = *s.MaxLoadUnderSLA.Load
		}
		if got != in.wantLoad {
			t.Fatalf("%s: max load under SLA %v, want %v (the simulator's batch)", in.label, got, in.wantLoad)
		}
		checkStepCosts(t, in, s)
	}
	const needUsers = 20
	code, out, errs := runCLI(t, append([]string{"compare", "--need-users", fmtF(needUsers), "--format", "json"}, paths...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, errs)
	}
	var ch struct {
		Recommendation *struct {
			Label       string  `json:"label"`
			Instances   int     `json:"instances"`
			CostPerHour float64 `json:"cost_per_hour"`
		} `json:"recommendation"`
		Candidates []struct {
			Label       string   `json:"label"`
			MeetsSLA    bool     `json:"meets_sla"`
			Instances   *int     `json:"instances"`
			CostPerHour *float64 `json:"cost_per_hour"`
			Reason      string   `json:"reason"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &ch); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Recomputed here: instances = ceil(need / max load), cost = that ×
	// the price; small 5 × $1 = $5, large 3 × $1.5 = $4.5.
	best, bestCost := "", math.Inf(1)
	for i, in := range instances {
		c := ch.Candidates[i]
		if c.Label != in.label {
			t.Fatalf("candidate %d is %q, want %q", i, c.Label, in.label)
		}
		if in.wantLoad == 0 {
			if c.MeetsSLA || c.Instances != nil || !strings.Contains(c.Reason, "never meets the SLA") {
				t.Errorf("%s: %+v, want listed as never meeting the SLA", in.label, c)
			}
			continue
		}
		n := int(math.Ceil(needUsers / in.wantLoad))
		cost := float64(n) * in.price
		if c.Instances == nil || *c.Instances != n || c.CostPerHour == nil || math.Abs(*c.CostPerHour-cost) > 1e-9 {
			t.Errorf("%s: instances %v cost %v, want %d at $%v/h", in.label, c.Instances, c.CostPerHour, n, cost)
		}
		if cost < bestCost {
			best, bestCost = in.label, cost
		}
	}
	r := ch.Recommendation
	if best != "large" || r == nil || r.Label != best || r.Instances != int(math.Ceil(needUsers/8.0)) || math.Abs(r.CostPerHour-bestCost) > 1e-9 {
		t.Errorf("recommendation %+v, want %s at $%v/h", r, best, bestCost)
	}
	// The table says the same in plain words.
	code, out, _ = runCLI(t, append([]string{"compare", "--need-users", fmtF(needUsers)}, paths...)...)
	for _, want := range []string{"recommended: large, 3 instances for 20 users", "small would take 5 instances at $5.00/hour",
		"tiny: never meets the SLA at any load tested", "RECOMMENDED"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("compare table (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

// sweepInstance sweeps one simulated instance into dir and returns the
// sweep file and its content. A sweep in which the client itself set the
// pace (a harness-limited step, which the analysis does not count: on a
// starved machine the dispatcher falls behind) is run again, at most
// twice: it measured the test machine, not the simulator.
func sweepInstance(t *testing.T, dir string, in instance) (string, *capacity.Sweep) {
	for attempt := 1; ; attempt++ {
		d := filepath.Join(dir, strconv.Itoa(attempt))
		code, out, errs := runChild(t, "sweep", "--base-url", batchingSim(t, in.slots), "--model", "llmbench-sim",
			"--concurrency", in.ladder, "--sla", "p90_ttft_ms<300", "--label", in.label,
			"--price-per-hour", fmtF(in.price),
			"--prompts-per-step", "16", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "32",
			"--num-prompts", "16", "--result-dir", d, "--tokenizer", "builtin:gpt2", "--ready-check-timeout-sec", "0")
		if code != 0 {
			t.Errorf("sweep %s: exit %d\n%s\n%s", in.label, code, out, errs)
			return "", nil
		}
		if !strings.Contains(out, "$/1M out") || strings.Contains(out, "Max sustained under SLA") != (in.wantLoad > 0) {
			t.Errorf("sweep %s: no cost columns or wrong at-SLA line:\n%s", in.label, out)
		}
		s := readSweep(t, d)
		limited := slices.ContainsFunc(s.Steps, func(r capacity.Row) bool { return r.HarnessLimited })
		if !limited || attempt == 3 {
			files, _ := filepath.Glob(filepath.Join(d, "sweep-*.json"))
			return files[0], s
		}
		t.Logf("sweep %s, attempt %d: the client was limited (harness_limited); running it again:\n%s", in.label, attempt, out)
	}
}

// checkStepCosts recomputes each step's cost figures from its
// throughput and the instance's price.
func checkStepCosts(t *testing.T, in instance, s *capacity.Sweep) {
	t.Helper()
	if s.Label != in.label || s.Pricing == nil || s.Pricing.USDPerHour() != in.price {
		t.Errorf("%s: label %q pricing %+v", in.label, s.Label, s.Pricing)
		return
	}
	for _, r := range s.Steps {
		if r.USDPerHour == nil || *r.USDPerHour != in.price || r.USDPerRequest == nil || r.USDPer1MOutputTokens == nil ||
			math.Abs(*r.USDPerRequest-in.price/(3600*r.RequestThroughput)) > 1e-12 ||
			math.Abs(*r.USDPer1MOutputTokens-in.price*1e6/(3600*r.OutputThroughput)) > 1e-9 {
			t.Errorf("%s at %v: $/h %v $/req %v $/1M %v", in.label, r.Load, r.USDPerHour, r.USDPerRequest, r.USDPer1MOutputTokens)
		}
	}
	if in.wantLoad > 0 {
		a := s.AtSLA
		if a == nil || a.Load != in.wantLoad || a.MaxInvocationsPerMinute <= 0 || a.USDPer1MOutputTokens == nil {
			t.Errorf("%s: at SLA %+v", in.label, a)
		}
	}
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// TestSweepUtilizationPerStep: a SageMaker sweep with --cloudwatch reads
// the instance utilisation from a CloudWatch loopback fake (one
// datapoint a minute, as AWS publishes it), normalises it by the
// instance type's 48 vCPUs and 4 GPUs, and prints and saves it per step.
func TestSweepUtilizationPerStep(t *testing.T) {
	fakeAWSEnv(t)
	// ml.g5.12xlarge: CPUUtilization 960 of 4,800 is 20 %, GPUUtilization
	// 240 of 400 is 60 %, GPU memory 360 of 400 is 90 %.
	raw := map[string]float64{cloudwatch.CPUUtilization: 960, cloudwatch.GPUUtilization: 240,
		cloudwatch.GPUMemoryUtilization: 360, cloudwatch.MemoryUtilization: 55, cloudwatch.DiskUtilization: 12}
	cw := cwtest.New(t, cwtest.PerMinute(func(metric, stat string, _ time.Time) (float64, bool) {
		v, ok := raw[metric]
		return v, ok && stat == "Average"
	}))
	t.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH", cw.URL)
	dir := t.TempDir()
	code, out, errs := runChild(t, "sweep", "--backend", "sagemaker", "--endpoint-name", "bench-ep",
		"--endpoint-url", batchingSim(t, 4), "--region", "us-east-1", "--payload-format", "openai",
		"--cloudwatch", "--cloudwatch-wait", "0s", "--instance-type", "ml.g5.12xlarge",
		"--concurrency", "1,2", "--prompts-per-step", "4", "--step-warmup", "0", "--random-input-len", "8", "--random-output-len", "8",
		"--num-prompts", "4", "--result-dir", dir, "--tokenizer", "builtin:gpt2", "--ready-check-timeout-sec", "0")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	s := readSweep(t, dir)
	for _, r := range s.Steps {
		u := r.Utilization
		if u == nil || !u.Normalized || u.Minutes < 1 || *u.CPUPct != 20 || *u.GPUPct != 60 || *u.GPUMemoryPct != 90 ||
			*u.MemoryPct != 55 || *u.DiskPct != 12 || !strings.Contains(u.Note, "shorter than 2 minutes") {
			t.Errorf("step %v: utilization %+v", r.Load, u)
		}
	}
	// Printed beside the client's figures, one line per step.
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "concurrency ") {
			for _, col := range []string{"CPU %", "mem %", "GPU %", "GPU mem %", "disk %", "$/1M out"} {
				if !strings.Contains(l, col) {
					t.Errorf("header lacks %q: %s", col, l)
				}
			}
			for _, step := range lines[i+1 : i+3] {
				if !strings.HasSuffix(step, "20.0      55.0      60.0      90.0      12.0") {
					t.Errorf("step line without its utilisation: %q", step)
				}
			}
		}
	}
	if !strings.Contains(out, "Utilization: windows shorter than 2 minutes") {
		t.Errorf("no note on short windows:\n%s", out)
	}
	// Every read was for the endpoint's variant in the utilisation
	// namespace, at one-minute resolution.
	for _, req := range cw.Requests() {
		for _, q := range req.Queries {
			if q.Namespace != cloudwatch.UtilizationNamespace || q.Period != 60 || q.Dims["EndpointName"] != "bench-ep" {
				t.Errorf("query %+v", q)
			}
		}
	}
	if cw.Calls() != 1 {
		t.Errorf("%d CloudWatch reads, want one for the whole sweep", cw.Calls())
	}
}

// TestCompareSweepArgs: how compare treats sweep files, result files and
// the need flags.
func TestCompareSweepArgs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sla, _ := capacity.ParseSLA("p99_ttft_ms<500")
	pass := true
	s := &capacity.Sweep{Label: "one", LoadKind: capacity.Concurrency, SLA: sla,
		// A real step's shape: its figures in metrics (capacity.RowFrom).
		Steps: []capacity.Row{{Load: 4, LoadKind: capacity.Concurrency, RequestThroughput: 2, OutputThroughput: 100, SLAPass: &pass,
			Metrics: map[string]float64{"error_rate": 0, "request_throughput": 2, "output_throughput": 100}}}}
	four := 4.0
	s.MaxLoadUnderSLA.Load = &four
	s.Price(&capacity.Pricing{InstanceCount: 2, USDPerInstanceHour: 1.25, Source: "--price-per-hour"})
	sweep := filepath.Join(dir, "anything.json")
	if err := writeUserFile(sweep, func(w io.Writer) error { return capacity.WriteJSON(w, s) }); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(dir, "result.json")
	if err := os.WriteFile(result, []byte(`{"duration": 1, "completed": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stdout (exit 0) or stderr
	}{
		// one sweep is enough: 10 users = ceil(10/4) = 3 endpoints of 2 instances at $2.50/h
		{"one sweep, by content", []string{sweep, "--need-users", "10"}, 0, "recommended: one, 6 instances for 10 users within the SLA (p99_ttft_ms<500), $7.50/hour ($5,475.00/month)"},
		{"mixed files", []string{sweep, result}, 2, "not both (1 of 2 are sweeps)"},
		{"need with results", []string{result, result, "--need-users", "3"}, 2, "compare sweep files"},
		{"both needs", []string{sweep, "--need-users", "3", "--need-rps", "1"}, 2, "one of --need-users or --need-rps"},
		{"fail-if with sweeps", []string{sweep, "--fail-if", "p99_ttft_ms>+10%"}, 2, "llmbench report SWEEP.json"},
		{"one result file", []string{result}, 2, "want two or more result files, got 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(t, append([]string{"compare"}, tt.args...)...)
			got := out
			if tt.code != 0 {
				got = errs
			}
			if code != tt.code || !strings.Contains(got, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errs)
			}
		})
	}
}
