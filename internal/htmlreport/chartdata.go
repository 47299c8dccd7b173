package htmlreport

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
)

// histBins is the number of histogram bins.
const histBins = 30

// cdfPoints bounds the points of a CDF line.
const cdfPoints = 200

// metricInfo names the latency metrics the pages draw.
var metricInfo = []struct{ key, short, long string }{
	{"ttft", "TTFT", "time to first token"},
	{"tpot", "TPOT", "time per output token (excl. 1st)"},
	{"itl", "ITL", "inter-token latency"},
	{"e2el", "E2EL", "end-to-end latency"},
}

// MetricValues returns one latency metric's values in milliseconds over
// the successful requests, as vLLM defines them: TTFT and E2EL per
// request, TPOT = (E2EL - TTFT) / (output tokens - 1) for requests with
// more than one token, ITL pooled over all gaps.
func MetricValues(reqs []Request, metric string) []float64 {
	var out []float64
	for i := range reqs {
		r := &reqs[i]
		if !r.OK {
			continue
		}
		switch metric {
		case "ttft":
			out = append(out, r.TTFT*1000)
		case "e2el":
			out = append(out, r.E2EL*1000)
		case "tpot":
			if tpot, ok := metrics.RequestTPOT(r.E2EL, r.TTFT, r.OutputLen); ok {
				out = append(out, tpot*1000)
			}
		case "itl":
			for _, g := range r.ITL {
				out = append(out, g*1000)
			}
		}
	}
	return out
}

// PerUserTPS returns each successful request's decode speed as its user
// sees it: output tokens / (E2EL - TTFT), in tokens/s, for requests with
// more than one token.
func PerUserTPS(reqs []Request) []float64 {
	var out []float64
	for i := range reqs {
		r := &reqs[i]
		if !r.OK {
			continue
		}
		if tps, ok := metrics.PerUserTPS(r.E2EL, r.TTFT, r.OutputLen); ok {
			out = append(out, tps)
		}
	}
	return out
}

// Histogram bins values into histBins equal bins from the smallest to the
// largest value (one narrow bin when all are equal).
func Histogram(values []float64) []Bar {
	if len(values) == 0 {
		return nil
	}
	lo, hi := slices.Min(values), slices.Max(values)
	if hi == lo {
		w := math.Max(math.Abs(lo)*0.01, 1e-3)
		return []Bar{{Min: lo - w/2, Max: lo + w/2, Count: len(values)}}
	}
	w := (hi - lo) / histBins
	bars := make([]Bar, histBins)
	for i := range bars {
		bars[i] = Bar{Min: lo + float64(i)*w, Max: lo + float64(i+1)*w}
	}
	bars[histBins-1].Max = hi
	for _, v := range values {
		i := min(int((v-lo)/w), histBins-1)
		bars[i].Count++
	}
	return bars
}

// CDF returns the empirical CDF of values as (value, percent of values <=
// value) points, at most cdfPoints of them (evenly spaced ranks, always
// including the first and the last).
func CDF(values []float64) [][2]float64 {
	n := len(values)
	if n == 0 {
		return nil
	}
	s := slices.Clone(values)
	slices.Sort(s)
	k := min(n, cdfPoints)
	out := make([][2]float64, 0, k)
	for j := range k {
		i := j * (n - 1) / max(k-1, 1)
		out = append(out, [2]float64{s[i], float64(i+1) / float64(n) * 100})
	}
	return out
}

// percentileMarks returns the percentiles the result reports for metric
// (keys p<x>_<metric>_ms), lowest first, as marks "P99 285.3".
func percentileMarks(res map[string]any, metric string, num func(string) (float64, bool)) []Mark {
	suffix := "_" + metric + "_ms"
	type pk struct {
		p   float64
		lab string
		v   float64
	}
	var ps []pk
	for k := range res {
		rest, isP := strings.CutPrefix(k, "p")
		lab, isM := strings.CutSuffix(rest, suffix)
		p, err := strconv.ParseFloat(lab, 64)
		if !isP || !isM || err != nil {
			continue
		}
		if v, ok := num(k); ok {
			ps = append(ps, pk{p, lab, v})
		}
	}
	slices.SortFunc(ps, func(a, b pk) int { return cmp.Compare(a.p, b.p) })
	out := make([]Mark, len(ps))
	for i, x := range ps {
		out[i] = Mark{At: x.v, Label: "P" + x.lab, Kind: MarkPercentile}
	}
	return out
}

// sloMark is the goodput SLO line for metric, if one was given.
func sloMark(slo map[string]float64, metric string) []Mark {
	v, ok := slo[metric]
	if !ok {
		return nil
	}
	return []Mark{{At: v, Label: "SLO " + strings.ToUpper(metric), Kind: MarkSLO}}
}

// sloFar: a SLO more than this many times the largest value is not drawn
// (it would squeeze every bar into a sliver); the chart says so instead.
const sloFar = 2

// sloWithin is the SLO mark for metric when it lies near the values, or
// a note saying where it is when it is far beyond them.
func sloWithin(slo map[string]float64, metric string, vals []float64) ([]Mark, string) {
	m := sloMark(slo, metric)
	if len(m) == 0 || len(vals) == 0 {
		return m, ""
	}
	if hi := slices.Max(vals); hi > 0 && m[0].At > sloFar*hi {
		return nil, fmt.Sprintf("The SLO (%g ms) is far right of every value, off the chart.", m[0].At)
	}
	return m, ""
}

// DistributionCharts returns, for TTFT, TPOT, ITL and E2EL, a histogram
// and a CDF of the run's per-request values with the reported percentiles
// and any goodput SLO marked. Metrics without values are left out.
func DistributionCharts(run *Run) []Chart {
	var out []Chart
	for _, m := range metricInfo {
		vals := MetricValues(run.Requests, m.key)
		if len(vals) == 0 {
			continue
		}
		marks := percentileMarks(run.Result.Values, m.key, run.Result.Number)
		slo, note := sloWithin(run.SLOms, m.key, vals)
		marks = append(marks, slo...)
		unit := m.short + " (ms)"
		out = append(out,
			Chart{
				ID: m.key + "-hist", Title: m.short + " distribution: " + m.long,
				XLabel: unit, YLabel: countLabel(m.key),
				Caption: fmt.Sprintf("How %s spreads over %d values. Look for a second hump or a long right tail: the percentiles (dashed) say how far the tail reaches; a value right of the SLO line (red) misses it.", m.short, len(vals)),
				Bars:    Histogram(vals), VMarks: marks, Note: note,
			},
			Chart{
				ID: m.key + "-cdf", Title: m.short + " CDF",
				XLabel: unit, YLabel: "share of values ≤ x (%)",
				Caption: fmt.Sprintf("The share of %s values at or below x. A steep rise means consistent latency; where the curve bends right, the tail starts.", m.short),
				Series:  []Series{{Name: m.short, XY: CDF(vals)}}, VMarks: marks, Note: note,
			})
	}
	return out
}

// countLabel is the histogram Y label for metric.
func countLabel(metric string) string {
	if metric == "itl" {
		return "token gaps"
	}
	return "requests"
}

// Buckets returns the output tokens and the requests in flight per 1-second
// bucket over the successful requests, with vLLM's peak-metric rules:
// buckets start at the first send, each token chunk counts in the bucket
// of its arrival, each request in every bucket from its send to its last
// chunk. The largest values are the result's peak output token throughput
// and peak concurrent requests (chunk counts, as vLLM counts them).
func Buckets(reqs []Request) (tokens, inFlight []int) {
	t0, tEnd, found := 0.0, 0.0, false
	for i := range reqs {
		r := &reqs[i]
		if !r.OK {
			continue
		}
		if !found || r.Start < t0 {
			t0 = r.Start
		}
		if !found || r.Start+r.E2EL > tEnd {
			tEnd = r.Start + r.E2EL
		}
		found = true
	}
	if !found || tEnd-t0 > 1e6 {
		return nil, nil
	}
	nb := int(math.Ceil(tEnd-t0)) + 1
	tokens, inFlight = make([]int, nb), make([]int, nb)
	for i := range reqs {
		r := &reqs[i]
		if !r.OK {
			continue
		}
		ts := r.Start + r.TTFT
		countAt(tokens, ts-t0)
		for _, g := range r.ITL {
			ts += g
			countAt(tokens, ts-t0)
		}
		for b := int(r.Start - t0); b <= int(r.Start+r.E2EL-t0) && b < nb; b++ {
			inFlight[b]++
		}
	}
	return tokens, inFlight
}

// countAt adds one to the bucket of offset t, if it is in range.
func countAt(b []int, t float64) {
	if t >= 0 && t < float64(len(b)) {
		b[int(t)]++
	}
}

// bucketSeries turns per-second counts into a line at each bucket's start.
func bucketSeries(name string, counts []int, color int) Series {
	s := Series{Name: name, Color: color}
	for i, c := range counts {
		s.XY = append(s.XY, [2]float64{float64(i), float64(c)})
	}
	return s
}

// inFlightExact is the most requests whose in-flight count is drawn
// step by step; past it the count is sampled at inFlightSamples instants.
const (
	inFlightExact   = 1000
	inFlightSamples = 1000
)

// InFlight returns the number of successful requests in flight over
// time, counted exactly from the records: at time t, those sent at or
// before t whose last token came after t (a request ending at t is no
// longer in flight; one sent at t is). Times are seconds since the first
// send, as in Buckets. Up to inFlightExact requests the line steps at
// every send and end (two points per change, so it draws as a staircase);
// beyond, it is the exact count at inFlightSamples evenly spaced
// instants, and sampled is true. Failed requests have no end time in the
// records and are left out.
func InFlight(reqs []Request) (xy [][2]float64, sampled bool) {
	var starts, ends []float64
	for i := range reqs {
		if r := &reqs[i]; r.OK {
			starts = append(starts, r.Start)
			ends = append(ends, r.Start+r.E2EL)
		}
	}
	if len(starts) == 0 {
		return nil, false
	}
	slices.Sort(starts)
	slices.Sort(ends)
	t0, tEnd := starts[0], ends[len(ends)-1]
	// at is the count at t: sends at or before t minus ends at or before t.
	at := func(t float64) float64 {
		s, _ := slices.BinarySearch(starts, math.Nextafter(t, math.Inf(1)))
		e, _ := slices.BinarySearch(ends, math.Nextafter(t, math.Inf(1)))
		return float64(s - e)
	}
	if len(starts) > inFlightExact {
		for i := range inFlightSamples + 1 {
			t := t0 + (tEnd-t0)*float64(i)/inFlightSamples
			xy = append(xy, [2]float64{t - t0, at(t)})
		}
		return xy, true
	}
	times := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(starts), ends...))))
	prev := 0.0
	for _, t := range times {
		n := at(t)
		xy = append(xy, [2]float64{t - t0, prev}, [2]float64{t - t0, n})
		prev = n
	}
	return xy, false
}

// OverTimeCharts returns output throughput per second and requests in
// flight for each run with per-request data (one line per run); a lone
// run's in-flight chart marks its --max-concurrency cap.
func OverTimeCharts(runs []*Run, labels []string) []Chart {
	tp := Chart{ID: "throughput-time", Title: "Output throughput over time",
		XLabel: "time since the first request (s)", YLabel: "output tokens per second (chunks)",
		Caption: "Token chunks received in each 1-second bucket; the highest bucket is the peak output token throughput. A ramp at the start and a tail at the end are normal; dips in the middle mean the server stalled."}
	fl := Chart{ID: "inflight-time", Title: "Requests in flight over time",
		XLabel: "time since the first request (s)", YLabel: "successful requests in flight",
		Caption: "Successful requests between their send and their last token at each instant, counted from the records' start times and latencies (failed requests have no end time there and are left out). Under a concurrency cap or a closed loop the line should sit at the cap while requests wait; below it the server was not kept busy. The result's \"Peak concurrent requests\" is vLLM's figure: every request active at any moment of a 1-second bucket, so it can exceed this line's highest point."}
	sampled := false
	for i, r := range runs {
		tok, _ := Buckets(r.Requests)
		if tok == nil {
			continue
		}
		tp.Series = append(tp.Series, bucketSeries(labels[i], tok, i))
		xy, smp := InFlight(r.Requests)
		fl.Series = append(fl.Series, Series{Name: labels[i], XY: xy, Color: i})
		sampled = sampled || smp
	}
	if len(tp.Series) == 0 {
		return nil
	}
	if sampled {
		fl.Note = fmt.Sprintf("A run of over %d successful requests has its exact count drawn at %d evenly spaced instants.", inFlightExact, inFlightSamples)
	}
	if len(runs) == 1 {
		if c, ok := runs[0].Result.Number(metrics.KeyMaxConcurrency); ok && c > 0 {
			fl.HMarks = []Mark{{At: c, Label: fmt.Sprintf("max concurrency %g", c), Kind: MarkCap}}
		}
	}
	return []Chart{tp, fl}
}

// sortedKeys returns m's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
