package htmlreport

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/metrics"
)

// timelineRows bounds the requests drawn on a timeline.
const timelineRows = 200

// slowITLFactor: a request whose largest ITL exceeds this multiple of the
// run's median ITL is drawn as decode with a slow gap.
const slowITLFactor = 3

// TimelineChart draws each request (the first timelineRows by send time)
// as a row: waiting for a concurrency slot, waiting for the first token,
// then decoding, coloured differently when one of its token gaps was
// unusually long; failures are marked with their error class.
func TimelineChart(run *Run) *Chart {
	if len(run.Requests) == 0 {
		return nil
	}
	order := make([]int, len(run.Requests))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(run.Requests[a].Start-run.Requests[a].Queue, run.Requests[b].Start-run.Requests[b].Queue)
	})
	t0 := math.Inf(1)
	for i := range run.Requests {
		t0 = math.Min(t0, run.Requests[i].Start-run.Requests[i].Queue)
	}
	slow := slowITLFactor * median(MetricValues(run.Requests, "itl")) / 1000
	c := &Chart{ID: "timeline", Title: "Per-request timeline",
		XLabel: "time since the first request (s)", YLabel: "request (in send order)",
		Caption: "Each row is one request: grey while it waited for a concurrency slot, orange until its first token, blue while tokens streamed (purple when one gap was over 3× the median ITL). Red crosses are failures, labelled by error class. Long orange bars mean queueing in the server; long grey bars mean the client's concurrency cap held requests back."}
	if len(order) > timelineRows {
		c.Note = fmt.Sprintf("The first %d of %d requests are drawn.", timelineRows, len(order))
		order = order[:timelineRows]
	}
	for row, i := range order {
		r := &run.Requests[i]
		s := r.Start - t0
		if r.Queue > 0 {
			c.Spans = append(c.Spans, Span{Row: row, From: s - r.Queue, To: s, Phase: PhaseQueue})
		}
		if !r.OK {
			c.Points = append(c.Points, Point{X: s + r.TTFT, Y: float64(row), Label: r.ErrorClass})
			continue
		}
		c.Spans = append(c.Spans, Span{Row: row, From: s, To: s + r.TTFT, Phase: PhaseTTFT})
		phase := PhaseDecode
		if len(r.ITL) > 0 && slow > 0 && slices.Max(r.ITL) > slow {
			phase = PhaseSlow
		}
		c.Spans = append(c.Spans, Span{Row: row, From: s + r.TTFT, To: s + r.E2EL, Phase: phase})
	}
	return c
}

// median is the middle value of vs (mean of the two middle ones), 0 for
// none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// PerUserTPSChart is the histogram of per-user decode speed (see
// PerUserTPS) with its P10, P50 and P90 marked; nil without data.
func PerUserTPSChart(run *Run) *Chart {
	v := PerUserTPS(run.Requests)
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var marks []Mark
	for _, p := range []float64{10, 50, 90} {
		marks = append(marks, Mark{At: metrics.Percentile(s, p), Label: "P" + strconv.Itoa(int(p)), Kind: MarkPercentile})
	}
	return &Chart{ID: "per-user-tps", Title: "Per-user decode speed",
		XLabel: "output tokens / (E2EL − TTFT) (tokens/s)", YLabel: "requests",
		Caption: "How fast each user saw text stream once it started. P10 is the speed the slowest tenth of users got: compare it with reading speed (about 5–10 tokens/s) or with what your product promises.",
		Bars:    Histogram(v), VMarks: marks}
}

// ProfileCharts draw, for TTFT, TPOT, ITL and E2EL, the saved percentiles
// of each run (x = percentile, y = value): available even without
// per-request data, and the overlay of a comparison.
func ProfileCharts(runs []*Run, labels []string) []Chart {
	var out []Chart
	for _, m := range metricInfo {
		c := Chart{ID: m.key + "-profile", Title: m.short + " percentiles",
			XLabel: "percentile", YLabel: m.short + " (ms)",
			Caption: "The saved percentiles of " + m.short + " (the median at 50). A line that shoots up at the right has a tail; a line above another is slower at that share of requests."}
		for i, r := range runs {
			s := Series{Name: labels[i], Dots: true, Color: i}
			if v, ok := r.Result.Number("median_" + m.key + "_ms"); ok {
				s.XY = append(s.XY, [2]float64{50, v})
			}
			for _, mk := range percentileMarks(r.Result.Values, m.key, r.Result.Number) {
				p, _ := strconv.ParseFloat(mk.Label[1:], 64)
				if p != 50 {
					s.XY = append(s.XY, [2]float64{p, mk.At})
				}
			}
			slices.SortFunc(s.XY, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
			if len(s.XY) > 0 {
				c.Series = append(c.Series, s)
			}
		}
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// CDFOverlayCharts draw one CDF per metric with a line per run that has
// per-request data.
func CDFOverlayCharts(runs []*Run, labels []string) []Chart {
	var out []Chart
	for _, m := range metricInfo {
		c := Chart{ID: m.key + "-cdf-overlay", Title: m.short + " CDF, all runs",
			XLabel: m.short + " (ms)", YLabel: "share of values ≤ x (%)",
			Caption: "One curve per run. A curve to the right is slower; compare where the curves cross 50% (median) and 99% (tail)."}
		for i, r := range runs {
			if v := MetricValues(r.Requests, m.key); len(v) > 0 {
				c.Series = append(c.Series, Series{Name: labels[i], XY: CDF(v), Color: i})
			}
		}
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	tps := Chart{ID: "per-user-tps-cdf-overlay", Title: "Per-user decode speed CDF, all runs",
		XLabel: "output tokens / (E2EL − TTFT) (tokens/s)", YLabel: "share of requests ≤ x (%)",
		Caption: "One curve per run; here right is better (faster streaming for the user). Compare the left end: the slowest users."}
	for i, r := range runs {
		if v := PerUserTPS(r.Requests); len(v) > 0 {
			tps.Series = append(tps.Series, Series{Name: labels[i], XY: CDF(v), Color: i})
		}
	}
	if len(tps.Series) > 0 {
		out = append(out, tps)
	}
	return out
}
