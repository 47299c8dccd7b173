package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/llmbench/llmbench/internal/capacity"
)

// synth is a made-up sweep of one endpoint that meets its SLA up to
// maxLoad and fails at the next load (so the limit is resolved), with a
// mean E2EL of e2elMs and think time thinkS, priced at price an hour (0
// = unpriced).
func synth(label string, kind capacity.Kind, maxLoad, price, e2elMs, thinkS float64) Input {
	pass, fail := true, false
	rps := maxLoad / (e2elMs/1000 + thinkS)
	if kind == capacity.RequestRate {
		rps = maxLoad
	}
	row := func(load float64, ok *bool) capacity.Row {
		return capacity.Row{Load: load, LoadKind: kind, Runs: 1, RequestThroughput: rps * load / maxLoad, MeanE2ELMs: e2elMs,
			MeanThinkS: thinkS, SLAPass: ok, Metrics: map[string]float64{"mean_e2el_ms": e2elMs}}
	}
	next := maxLoad + 1
	if kind == capacity.RequestRate {
		next = maxLoad * 1.01
	}
	ml, ff, binding := maxLoad, next, "p99_ttft_ms"
	s := &capacity.Sweep{Label: label, LoadKind: kind, SLA: capacity.SLA{{Key: "p99_ttft_ms", Op: "<", Value: 500}},
		Steps:           []capacity.Row{row(maxLoad, &pass), row(next, &fail)},
		MaxLoadUnderSLA: capacity.MaxLoad{Load: &ml, Binding: &binding, FirstFailingLoad: &ff}}
	if price > 0 {
		s.Price(&capacity.Pricing{InstanceCount: 1, USDPerInstanceHour: price, Source: "--price-per-hour"})
	}
	return Input{Candidate: capacity.CandidateOf(label, label+".json", s), Sweep: s}
}

// TestPlanCheaperOverTheDay: "big" holds 64 users at $9/h, so one of it
// carries the peak of 40 for less per hour than 7 of "small" (8 users,
// $2/h: $14/h), and compare --need-users 40 would pick it too (5 small
// for $10/h at full load); over the day small steps down to one replica
// at $2/h while big cannot go below $9, so the plan recommends small and
// says why.
func TestPlanCheaperOverTheDay(t *testing.T) {
	t.Parallel()
	small := synth("small", capacity.Concurrency, 8, 2, 700, 0)
	big := synth("big", capacity.Concurrency, 64, 9, 900, 0)
	d, _ := Profile(Diurnal, 40, 4)
	p, err := Make([]Input{big, small}, d, defaults)
	if err != nil {
		t.Fatal(err)
	}
	b, s := p.Candidates[0], p.Candidates[1]
	if *b.PeakCostPerHour != 9 || *s.PeakCostPerHour != 14 || *b.AutoscaledCostPerMonth != 9*730 {
		t.Errorf("big peak $%v/h, small $%v/h, big $%v/month; want 9, 14, 6570", *b.PeakCostPerHour, *s.PeakCostPerHour, *b.AutoscaledCostPerMonth)
	}
	// compare's rule at the peak alone picks big.
	ch := capacity.Choose([]capacity.Candidate{big.Candidate, small.Candidate}, capacity.Need{Users: 40})
	if ch.Recommendation == nil || ch.Recommendation.Label != "big" {
		t.Fatalf("compare at the peak: %+v, want big", ch.Recommendation)
	}
	r := p.Recommendation
	if r == nil || r.Label != "small" || r.AutoscaledCostPerMonth >= *b.AutoscaledCostPerMonth {
		t.Fatalf("recommendation %+v, want small", r)
	}
	for _, want := range []string{"big is cheaper per hour at the peak ($9.00 against $14.00) but dearer over the day ($6,570.00/month)",
		"$2.00/hour off-peak against big's $9.00"} {
		if !strings.Contains(r.Why, want) {
			t.Errorf("why lacks %q:\n%s", want, r.Why)
		}
	}
}

// TestPlanRequestsPerSecond: a demand in requests per second becomes
// users by Little's law with the E2EL and think time of each sweep's
// step at its max load, and the output states them.
func TestPlanRequestsPerSecond(t *testing.T) {
	t.Parallel()
	csv := "time,requests_per_s\n00:00,2\n08:00,10\n20:00,4\n"
	d, err := ReadDemandCSV(strings.NewReader(csv), "rps.csv")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		in         Input
		wantUsers  []float64 // per slot: rps × (E2EL + think)
		wantStated string
		// wantOverrun is 08:00's user-minutes: the excess over one
		// endpoint's max load for the 5-minute scale-up delay, in users.
		wantOverrun float64
	}{
		// (20 - 8) users × 5 min.
		{"closed loop, 2 s E2EL", synth("conc", capacity.Concurrency, 8, 2, 2000, 0), []float64{4, 20, 8},
			"Little's law (conc): users = requests/s × (mean E2EL 2000.0 ms + think time 0 s), from its step at load 8", 60},
		// 40 users fit one endpoint of 40: none.
		{"users with 3 s think", synth("chat", capacity.Users, 40, 2, 1000, 3), []float64{8, 40, 16},
			"Little's law (chat): users = requests/s × (mean E2EL 1000.0 ms + think time 3 s), from its step at load 40", 0},
		// (10 - 5) req/s × 2 s × 5 min.
		{"request-rate sweep sized in req/s", synth("rate", capacity.RequestRate, 5, 2, 2000, 0), []float64{4, 20, 8},
			"Little's law (rate): users = requests/s × (mean E2EL 2000.0 ms + think time 0 s), from its step at load 5", 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Make([]Input{tt.in}, d, defaults)
			if err != nil {
				t.Fatal(err)
			}
			c := p.Candidates[0]
			if c.LittlesLaw == nil || !c.Eligible {
				t.Fatalf("candidate %+v", c)
			}
			for i, s := range c.Slots {
				if math.Abs(s.Users-tt.wantUsers[i]) > 1e-9 || s.RequestsPerS == nil || *s.RequestsPerS != d.Slots[i].Value {
					t.Errorf("slot %s: users %v rps %v, want %v", s.Time, s.Users, s.RequestsPerS, tt.wantUsers[i])
				}
			}
			if got := c.Slots[1].SLAOverrunUserMinutes; math.Abs(got-tt.wantOverrun) > 1e-6 || c.SLAOverrunUserMinutes != got {
				t.Errorf("overrun at 08:00 %v (day %v), want %v", got, c.SLAOverrunUserMinutes, tt.wantOverrun)
			}
			var text bytes.Buffer
			if err := WriteText(&text, p); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), tt.wantStated) {
				t.Errorf("text lacks %q:\n%s", tt.wantStated, text.String())
			}
			var js bytes.Buffer
			if err := WriteJSON(&js, p); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(js.String(), `"littles_law": {`) || !strings.Contains(js.String(), `"mean_e2el_ms"`) {
				t.Errorf("JSON lacks littles_law:\n%s", js.String())
			}
		})
	}
	// The rate sweep: 10 req/s over 0.8 × 5 req/s needs 3 replicas.
	p, _ := Make([]Input{synth("rate", capacity.RequestRate, 5, 2, 2000, 0)}, d, defaults)
	if got := p.Candidates[0].Slots[1].Replicas; got != 3 {
		t.Errorf("rate sweep at 10 req/s: %d replicas, want ceil(10 / 4) = 3", got)
	}
	// A request-rate sweep has no user count to compare users with.
	du, _ := Profile(Flat, 10, 0)
	p, _ = Make([]Input{synth("rate", capacity.RequestRate, 5, 2, 2000, 0)}, du, defaults)
	if c := p.Candidates[0]; c.Eligible || !strings.Contains(c.Reason, "requests per second") || p.Recommendation != nil {
		t.Errorf("rate sweep for a demand in users: %+v", c)
	}
}

// TestReadDemandCSVErrors: each bad input names its line.
func TestReadDemandCSVErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", "d.csv: empty"},
		{"header only", "time,users\n", "d.csv: no slots after the header"},
		{"wrong header", "hour,users\n00:00,1\n", "d.csv line 1: header \"hour,users\""},
		{"bad time", "time,users\n00:00,1\n25:00,2\n", "d.csv line 3: time \"25:00\" is not a time of day HH:MM"},
		{"not increasing", "time,users\n08:00,1\n# comment\n07:00,2\n", "d.csv line 4: time 07:00 does not come after 08:00"},
		{"negative", "time,users\n00:00,-1\n", "d.csv line 2: users \"-1\" is not a number >= 0"},
		{"three columns", "time,users\n00:00,1,2\n", "d.csv line 2: wrong number of fields"},
		{"not a number", "time,requests_per_s\n00:00,lots\n", "d.csv line 2: requests_per_s \"lots\" is not a number >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadDemandCSV(strings.NewReader(tt.in), "d.csv")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line starting %q", err, tt.want)
			}
		})
	}
	d, err := ReadDemandCSV(strings.NewReader("\ufefftime, users\r\n06:00, 1\r\n18:00,2.5\r\n"), "d.csv")
	if err != nil || len(d.Slots) != 2 || d.Length(0) != 720 || d.Length(1) != 720 || d.Slots[1].Value != 2.5 {
		t.Errorf("%+v %v: want two 12-hour slots, the last wrapping past midnight", d, err)
	}
}

// TestSimulateDelays: one endpoint (max load 10 users) most of the day
// and three from 08:00 to 09:00, under each delay rule.
func TestSimulateDelays(t *testing.T) {
	t.Parallel()
	d := Demand{Unit: Users, Slots: []DemandSlot{{0, 5}, {8 * 60, 25}, {9 * 60, 5}}}
	units := []int{1, 3, 1}
	tests := []struct {
		name         string
		up, down     time.Duration
		wantHours    float64 // endpoint-hours billed a day
		wantOverrun  float64 // user-minutes in the 08:00 slot
		wantSlotMins int
	}{
		// 22 h × 1 + 1 h × 3 + ... = 24 + 2 extra endpoint-hours.
		{"no delays", 0, 0, 26, 0, 60},
		// 25 users on one endpoint of 10 for 5 minutes: 15 × 5 = 75.
		{"5 min up", 5 * time.Minute, 0, 26, 75, 60},
		// Two extra endpoints billed 15 minutes longer: +0.5 h.
		{"15 min down", 0, 15 * time.Minute, 26.5, 0, 60},
		{"both", 5 * time.Minute, 15 * time.Minute, 26.5, 75, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := simulate(&d, []float64{5, 25, 5}, units, 10, 1, Config{ScaleUpDelay: tt.up, ScaleDownDelay: tt.down})
			if math.Abs(f.unitHours-tt.wantHours) > 1e-9 || math.Abs(f.overrun[1]-tt.wantOverrun) > 1e-6 || f.overrun[0] != 0 || f.overrun[2] != 0 {
				t.Errorf("hours %v overrun %v, want %v and %v in the 08:00 slot", f.unitHours, f.overrun, tt.wantHours, tt.wantOverrun)
			}
		})
	}
	// Demand that falls and rises again within the scale-down delay
	// keeps its replicas: no overrun on the way back up.
	dip := Demand{Unit: Users, Slots: []DemandSlot{{0, 25}, {600, 5}, {610, 25}}}
	f := simulate(&dip, []float64{25, 5, 25}, []int{3, 1, 3}, 10, 1, Config{ScaleUpDelay: 5 * time.Minute, ScaleDownDelay: 15 * time.Minute})
	if f.unitHours != 72 || f.overrun[2] != 0 {
		t.Errorf("a 10-minute dip: %v endpoint-hours, overrun %v; want 72 and none", f.unitHours, f.overrun)
	}
}

// TestHPAManifestDecodes: the manifest is a valid autoscaling/v2
// HorizontalPodAutoscaler (strict: no unknown or duplicate fields) with
// the plan's figures, and the SageMaker policy carries the API's keys.
func TestHPAManifestDecodes(t *testing.T) {
	t.Parallel()
	d, _ := Profile(Diurnal, 40, 4)
	p, err := Make([]Input{readSweep(t, "sweep-sim-batch8.json")}, d, defaults)
	if err != nil {
		t.Fatal(err)
	}
	j, err := sigsyaml.YAMLToJSONStrict([]byte(p.HPA.Manifest))
	if err != nil {
		t.Fatal(err)
	}
	var hpa autoscalingv2.HorizontalPodAutoscaler
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hpa); err != nil {
		t.Fatal(err)
	}
	m := hpa.Spec.Metrics[0]
	if hpa.Kind != "HorizontalPodAutoscaler" || *hpa.Spec.MinReplicas != 1 || hpa.Spec.MaxReplicas != 7 ||
		m.Pods.Metric.Name != "vllm_requests_in_flight" || m.Pods.Target.AverageValue.String() != "6400m" ||
		*hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 900 || *hpa.Spec.Behavior.ScaleUp.StabilizationWindowSeconds != 0 {
		t.Errorf("hpa %+v", hpa.Spec)
	}
	var policy map[string]any
	b, _ := json.Marshal(p.SageMaker.PutScalingPolicy)
	_ = json.Unmarshal(b, &policy)
	tt := policy["TargetTrackingScalingPolicyConfiguration"].(map[string]any)
	// 60 × 11.79 req/s at 8, interpolated to 6.4 between 4 and 8.
	want := math.Round(60*throughputAt(p.Candidates[0].sweep, 6.4)*10) / 10
	if policy["PolicyType"] != "TargetTrackingScaling" || tt["TargetValue"] != want || want < 500 || want > 600 ||
		tt["PredefinedMetricSpecification"].(map[string]any)["PredefinedMetricType"] != "SageMakerVariantInvocationsPerInstance" ||
		p.SageMaker.MinCapacity != 1 || p.SageMaker.MaxCapacity != 7 {
		t.Errorf("policy %v, capacity %d-%d", policy, p.SageMaker.MinCapacity, p.SageMaker.MaxCapacity)
	}
}

// TestPlanRoundTrip: a plan file reads back as what was written.
func TestPlanRoundTrip(t *testing.T) {
	t.Parallel()
	d, _ := Profile(Flat, 10, 0)
	p, err := Make([]Input{synth("a", capacity.Concurrency, 8, 2, 700, 0)}, d, defaults)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := WriteJSON(&a, p); err != nil {
		t.Fatal(err)
	}
	if !IsPlan(a.Bytes()) || IsPlan([]byte(`{"steps":[],"load_kind":"concurrency"}`)) {
		t.Fatal("IsPlan")
	}
	q, err := Read(a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&b, q); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("round trip differs:\n%s\n%s", a.String(), b.String())
	}
}

// TestMakeErrors: bad settings and demands are one-line errors, and a
// sweep that never met its SLA is planned as not eligible.
func TestMakeErrors(t *testing.T) {
	t.Parallel()
	d, _ := Profile(Flat, 10, 0)
	in := []Input{synth("a", capacity.Concurrency, 8, 2, 700, 0)}
	for _, tt := range []struct {
		name string
		cfg  Config
		d    Demand
		want string
	}{
		{"utilisation over 1", Config{TargetUtilisation: 1.5}, d, "target utilisation 1.5"},
		{"negative delay", Config{ScaleUpDelay: -time.Second}, d, "delays must be from 0"},
		{"zero demand", defaults, Demand{Unit: Users, Slots: []DemandSlot{{0, 0}}}, "the demand is zero all day"},
	} {
		if _, err := Make(in, tt.d, tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	never := synth("never", capacity.Concurrency, 8, 2, 700, 0)
	never.Sweep.MaxLoadUnderSLA.Load = nil
	never.Candidate = capacity.CandidateOf("never", "never.json", never.Sweep)
	p, err := Make([]Input{never}, d, defaults)
	if err != nil || p.Candidates[0].Eligible || p.Recommendation != nil || !strings.Contains(p.Summary, "never: never meets the SLA") {
		t.Errorf("%v %+v", err, p)
	}
	if _, err := Profile("weekly", 10, 1); err == nil || !strings.Contains(err.Error(), `--profile "weekly"`) {
		t.Errorf("profile: %v", err)
	}
}

// TestPlanNeverMetSLARequestsPerS: a sweep with no load under its SLA has
// no step to take Little's law from; with a demand in requests per second
// it is listed with compare's reason, not a crash.
func TestPlanNeverMetSLARequestsPerS(t *testing.T) {
	t.Parallel()
	d, err := ReadDemandCSV(strings.NewReader("time,requests_per_s\n00:00,2\n"), "rps.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []capacity.Kind{capacity.Concurrency, capacity.RequestRate} {
		never := synth("never", kind, 8, 2, 700, 0)
		never.Sweep.MaxLoadUnderSLA.Load = nil
		never.Candidate = capacity.CandidateOf("never", "never.json", never.Sweep)
		p, err := Make([]Input{never}, d, defaults)
		if err != nil || p.Candidates[0].Eligible || !strings.Contains(p.Candidates[0].Reason, "never meets the SLA") {
			t.Errorf("%s: %v %+v", kind, err, p)
		}
	}
}

// TestPlanWarnings: the notes say when sweeps were judged against
// different SLAs (compare's note), when a max load is only a lower bound
// and when the ladder left the limit unresolved.
func TestPlanWarnings(t *testing.T) {
	t.Parallel()
	a := synth("a", capacity.Concurrency, 8, 2, 700, 0)
	b := synth("b", capacity.Concurrency, 16, 3, 700, 0)
	b.Sweep.SLA = capacity.SLA{{Key: "p99_ttft_ms", Op: "<", Value: 900}}
	b.Sweep.MaxLoadUnderSLA.FirstFailingLoad = nil // every load met it
	b.Candidate = capacity.CandidateOf("b", "b.json", b.Sweep)
	c := synth("c", capacity.Concurrency, 8, 2, 700, 0)
	ff := 32.0
	c.Sweep.MaxLoadUnderSLA.FirstFailingLoad = &ff
	d, _ := Profile(Flat, 10, 0)
	p, err := Make([]Input{a, b, c}, d, defaults)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"the sweeps were judged against different SLAs",
		"b: its max load under the SLA (16) is a lower bound",
		"c: its limit lies between 8 (met the SLA) and 32 (failed), unresolved"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "a: ") {
		t.Errorf("a's limit is resolved (8 passes, 9 fails), yet:\n%s", notes)
	}
}
