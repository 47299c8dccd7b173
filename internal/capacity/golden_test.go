package capacity

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"

	goldenfile "github.com/llmbench/llmbench/internal/golden"

	"github.com/llmbench/llmbench/internal/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// spec is one synthetic step: what a server at that load would show.
type spec struct {
	load     float64
	tput     float64 // output tok/s
	p99TTFT  float64 // ms; the mean is half of it
	p99ITL   float64 // ms; the mean is 0.8 of it
	failed   int
	lagP99   float64 // ms; 0.5 when 0
	e2elMean float64 // ms; 0 = what Little's law gives for a closed loop
}

// outLen is every synthetic request's output length.
const outLen = 128

// synthSummary builds the Summary a run at sp would give: 100 requests
// of outLen tokens, percentiles 50 and 99, ttft/tpot/itl/e2el.
func synthSummary(sp spec, kind Kind, thinkS float64) *metrics.Summary {
	x := sp.tput / outLen // req/s
	e2el := sp.e2elMean
	if e2el == 0 && kind != RequestRate && x > 0 {
		e2el = 1000 * (sp.load/x - thinkS)
	}
	stats := func(m string, mean, p99 float64) metrics.Stats {
		return metrics.Stats{Metric: m, N: 100, Mean: mean, Median: mean, Std: (p99 - mean) / 3, Percentiles: []float64{mean, p99}}
	}
	itlMean := 0.8 * sp.p99ITL
	lag := sp.lagP99
	if lag == 0 {
		lag = 0.5
	}
	lagSt := stats("dispatch_lag", lag/2, lag)
	return &metrics.Summary{
		Completed: 100 - sp.failed, Failed: sp.failed, Duration: 100 / max(x, 1e-9),
		RequestThroughput: x, OutputThroughput: sp.tput, TotalTokenThroughput: sp.tput * 3,
		MaxConcurrentRequests: int(sp.load),
		Percentiles:           []float64{50, 99},
		Metrics: []metrics.Stats{
			stats(metrics.TTFT, sp.p99TTFT/2, sp.p99TTFT), stats(metrics.TPOT, itlMean, 0.9*sp.p99ITL),
			stats(metrics.ITL, itlMean, sp.p99ITL), stats(metrics.E2EL, e2el, 1.5*e2el),
		},
		Extra: metrics.Extra{DispatchLag: &lagSt},
		PerUser: metrics.PerUser{N: 100, MeanTPS: 1000 / itlMean, MedianTPS: 1000 / itlMean,
			LowTPS:    []float64{1000 / sp.p99ITL, 1000 / (0.95 * sp.p99ITL), 1000 / (0.9 * sp.p99ITL)},
			SystemTPS: sp.tput, TokenGoodput: 0.9 * sp.tput, GoodputTokens: 90 * outLen, GoodputRequests: 90},
	}
}

func rowsOf(kind Kind, thinkS float64, specs ...spec) []Row {
	var rows []Row
	for _, sp := range specs {
		rows = append(rows, RowFrom(synthSummary(sp, kind, thinkS), Step{Load: sp.load, Kind: kind, MeanThinkS: thinkS,
			ResultFile: "step-" + f64(sp.load) + ".json"}))
	}
	return rows
}

// a100 is the finding for one A100 with an 8B model: throughput
// rises ~27× from 1 to 100 users (115 -> 3,100 tok/s), then stays flat
// to 200 while p99 TTFT climbs to 3.4 s and ITL passes 55 ms.
var a100 = []spec{
	{load: 1, tput: 115, p99TTFT: 45, p99ITL: 9},
	{load: 2, tput: 228, p99TTFT: 48, p99ITL: 9.2},
	{load: 4, tput: 450, p99TTFT: 52, p99ITL: 9.6},
	{load: 8, tput: 880, p99TTFT: 60, p99ITL: 10.5},
	{load: 16, tput: 1650, p99TTFT: 85, p99ITL: 12},
	{load: 32, tput: 2400, p99TTFT: 150, p99ITL: 16},
	{load: 64, tput: 2900, p99TTFT: 280, p99ITL: 23},
	{load: 100, tput: 3100, p99TTFT: 470, p99ITL: 28},
	{load: 128, tput: 3120, p99TTFT: 1200, p99ITL: 38},
	{load: 200, tput: 3150, p99TTFT: 3400, p99ITL: 56},
}

func TestGolden(t *testing.T) {
	t.Parallel()
	sla := mustSLA(t, "p99_ttft_ms<500,p99_itl_ms<30,error_rate<0.01")
	limited := append([]spec{}, a100...)
	limited[8].lagP99 = 40 // the client fell behind at 128
	growing := a100[:5]
	refined := append(append([]spec{}, a100...),
		spec{load: 114, tput: 3110, p99TTFT: 700, p99ITL: 31},
		spec{load: 107, tput: 3105, p99TTFT: 520, p99ITL: 29},
		spec{load: 103, tput: 3102, p99TTFT: 495, p99ITL: 28.5},
		spec{load: 105, tput: 3104, p99TTFT: 505, p99ITL: 28.8},
		spec{load: 104, tput: 3103, p99TTFT: 499, p99ITL: 28.6},
	)
	users := append([]spec{}, a100[:8]...)
	users[7].e2elMean = 2000 // Little's law: 24.2 req/s × (2 + 0.5) s = 61 in the system, not 100
	rates := []spec{
		{load: 1, tput: 128, p99TTFT: 40, p99ITL: 9, e2elMean: 1200},
		{load: 1, tput: 126, p99TTFT: 44, p99ITL: 9.4, e2elMean: 1250}, // a second run
		{load: 10, tput: 1270, p99TTFT: 90, p99ITL: 14, e2elMean: 1900},
		{load: 10, tput: 1250, p99TTFT: 110, p99ITL: 15, e2elMean: 2000},
		{load: 30, tput: 2950, p99TTFT: 2600, p99ITL: 40, failed: 3, e2elMean: 9000},
		{load: 30, tput: 2990, p99TTFT: 2900, p99ITL: 42, failed: 5, e2elMean: 9800},
	}
	g5 := &Pricing{InstanceType: "ml.g5.2xlarge", InstanceCount: 2, USDPerInstanceHour: 1.515, Source: "--price-per-hour"}
	tests := []struct {
		name  string
		kind  Kind
		sla   SLA
		think float64
		specs []spec
		price *Pricing // nil: no cost figures
		util  bool     // synthetic utilisation on every step but the first
	}{
		{"a100_concurrency", Concurrency, sla, 0, a100, nil, false},                                            // the example
		{"a100_refined", Concurrency, sla, 0, refined, nil, false},                                             // after bisection: 104
		{"first_step_fails", Concurrency, mustSLA(t, "p99_ttft_ms<40"), 0, a100, nil, false},                   // max load null
		{"never_fails", Concurrency, mustSLA(t, "p99_ttft_ms<=5000,p10_per_user_tps>10"), 0, a100, nil, false}, // least headroom
		{"no_saturation", Concurrency, sla, 0, growing, nil, false},                                            // still growing
		{"no_sla", Concurrency, nil, 0, a100, nil, false},                                                      // saturation only
		{"harness_limited", Concurrency, sla, 0, limited, nil, false},                                          // 128 not counted
		{"users_think", Users, sla, 0.5, users, nil, false},                                                    // Little's law with think time
		{"rate_runs", RequestRate, mustSLA(t, "p99_ttft_ms<500,error_rate<0.01"), 0, rates, nil, false},        // --runs 2
		// cost per step and at the SLA load; utilisation averaged over runs
		{"priced_utilization", RequestRate, mustSLA(t, "p99_ttft_ms<500,error_rate<0.01"), 0, rates, g5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows := rowsOf(tt.kind, tt.think, tt.specs...)
			if tt.util {
				for i := range rows[1:] {
					rows[i+1].Utilization = synthUtil(rows[i+1].Load, i)
				}
			}
			s, err := Analyze(tt.kind, tt.sla, rows)
			if err != nil {
				t.Fatal(err)
			}
			s.Price(tt.price)
			var js, csv, txt bytes.Buffer
			for _, w := range []error{WriteJSON(&js, s), WriteCSV(&csv, s), WriteText(&txt, s)} {
				if w != nil {
					t.Fatal(w)
				}
			}
			golden(t, tt.name+".json", js.Bytes())
			// The file reads back into the same struct (for compare and
			// report tools).
			var back Sweep
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			var again bytes.Buffer
			if err := WriteJSON(&again, &back); err != nil || again.String() != js.String() {
				t.Errorf("JSON does not round-trip (%v)", err)
			}
			golden(t, tt.name+".csv", csv.Bytes())
			golden(t, tt.name+".txt", txt.Bytes())
		})
	}
}

// synthUtil is a utilisation that grows with load: CPU 5 % + load/2,
// GPU 20 % + 2 × load (capped at 100), memory 40 %, GPU memory 90 %,
// no disk figure; run i's CPU is i % higher, so --runs averages show.
func synthUtil(load float64, i int) *Utilization {
	cpu, gpu, mem, gmem := 5+load/2+float64(i), min(100, 20+2*load), 40.0, 90.0
	return &Utilization{CPUPct: &cpu, GPUPct: &gpu, MemoryPct: &mem, GPUMemoryPct: &gmem, Normalized: true, Minutes: 2,
		Note: "steps shorter than 2 minutes share CloudWatch minutes with their neighbours"}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got, *update)
}

func mustSLA(t *testing.T, s string) SLA {
	t.Helper()
	sla, err := ParseSLA(s)
	if err != nil {
		t.Fatal(err)
	}
	return sla
}
