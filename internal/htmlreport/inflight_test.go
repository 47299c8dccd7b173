package htmlreport

import (
	"cmp"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/report"
)

// TestInFlightCounts: the in-flight line is the exact count of
// successful requests between send and last token, stepping at every
// send and end; a request ending when another starts is not counted
// twice; failures are left out.
func TestInFlightCounts(t *testing.T) {
	t.Parallel()
	reqs := []Request{
		{Start: 10, E2EL: 2, OK: true},
		{Start: 11, E2EL: 1, OK: true}, // ends with the first
		{Start: 12, E2EL: 1, OK: true}, // starts as both end
		{Start: 10.5, OK: false},       // a failure: no end time
	}
	got, sampled := InFlight(reqs)
	want := [][2]float64{{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}, {2, 1}, {3, 1}, {3, 0}}
	if sampled || !slices.Equal(got, want) {
		t.Errorf("InFlight = %v (sampled %v), want %v", got, sampled, want)
	}
	if got, _ := InFlight([]Request{{Start: 1, OK: false}}); got != nil {
		t.Errorf("no successful request: %v, want nil", got)
	}
}

// TestInFlightSampled: past inFlightExact requests the line is the exact
// count at evenly spaced instants, checked against a naive count.
func TestInFlightSampled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]Request, inFlightExact+500)
	for i := range reqs {
		reqs[i] = Request{Start: 5 + rng.Float64()*60, E2EL: rng.Float64() * 4, OK: true}
	}
	got, sampled := InFlight(reqs)
	if !sampled || len(got) != inFlightSamples+1 {
		t.Fatalf("sampled %v, %d points", sampled, len(got))
	}
	t0 := slices.MinFunc(reqs, func(a, b Request) int { return cmp.Compare(a.Start, b.Start) }).Start
	for _, p := range got {
		n := 0
		for _, r := range reqs {
			if r.Start <= t0+p[0] && r.Start+r.E2EL > t0+p[0] {
				n++
			}
		}
		if float64(n) != p[1] {
			t.Fatalf("at %.6f s: %v in flight, naive count %d", p[0], p[1], n)
		}
	}
}

// TestInFlightChartUnderCap: the run page's in-flight chart of a run
// capped at 2 never shows more than 2, although vLLM's 1-second buckets
// (the result's peak concurrent requests) count 6 requests in one
// second; the cap is marked and the caption names vLLM's figure.
func TestInFlightChartUnderCap(t *testing.T) {
	t.Parallel()
	var reqs []Request
	for i := range 6 {
		// Two at a time, 0.3 s each, back to back: 6 in the first second.
		reqs = append(reqs, Request{Start: float64(i/2) * 0.3, E2EL: 0.3, TTFT: 0.1, OK: true})
	}
	_, buckets := Buckets(reqs)
	if buckets[0] != 6 {
		t.Fatalf("vLLM's bucket count %v, want 6 in the first second", buckets)
	}
	run := &Run{Path: "capped.json", Requests: reqs,
		Result: &report.CompareFile{Values: map[string]any{"max_concurrency": json.Number("2")}}}
	charts := OverTimeCharts([]*Run{run}, []string{""})
	var fl *Chart
	for i := range charts {
		if charts[i].ID == "inflight-time" {
			fl = &charts[i]
		}
	}
	if fl == nil {
		t.Fatal("no in-flight chart")
	}
	peak := 0.0
	for _, p := range fl.Series[0].XY {
		peak = max(peak, p[1])
	}
	if peak != 2 {
		t.Errorf("in-flight chart peaks at %v under a cap of 2", peak)
	}
	if len(fl.HMarks) != 1 || fl.HMarks[0].At != 2 || fl.HMarks[0].Kind != MarkCap {
		t.Errorf("cap mark %+v, want one at 2", fl.HMarks)
	}
}
