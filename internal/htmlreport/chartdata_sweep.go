package htmlreport

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
)

// stepSeries is one line over the steps: (load, step[key]) where present.
func stepSeries(sw *Sweep, key, name string, color int, dashed bool) Series {
	s := Series{Name: name, Dots: true, Color: color, Dashed: dashed}
	for i := range sw.Steps {
		if v, ok := sw.Steps[i].Figure(key); ok {
			s.XY = append(s.XY, [2]float64{sw.Steps[i].Load, v})
		}
	}
	return s
}

// loadMarks are the sweep's vertical marks: the saturation point and the
// max load under the SLA.
func loadMarks(sw *Sweep) []Mark {
	var m []Mark
	if sw.Saturation != nil {
		m = append(m, Mark{At: sw.Saturation.Load, Label: fmt.Sprintf("saturation: %g", sw.Saturation.Load), Kind: MarkSaturation})
	}
	if l := sw.MaxLoadUnderSLA.Load; l != nil {
		m = append(m, Mark{At: *l, Label: fmt.Sprintf("max load under SLA: %g", *l), Kind: MarkMaxLoad})
	}
	return m
}

// slaMarks are the horizontal SLA lines for terms whose key contains
// metric (e.g. "ttft" matches p99_ttft_ms).
func slaMarks(sw *Sweep, metric string) []Mark {
	var m []Mark
	for _, t := range sw.SLA {
		if strings.Contains(t.Key, "_"+metric+"_") {
			m = append(m, Mark{At: t.Value, Label: fmt.Sprintf("SLA %s %s %g", t.Key, t.Op, t.Value), Kind: MarkSLO})
		}
	}
	return m
}

// latencyVsLoad draws the mean, median (or p50: the same figure, drawn
// once), p90 and p99 of metric against load.
func latencyVsLoad(sw *Sweep, metric, short string) Chart {
	c := Chart{ID: "sweep-" + metric, Title: short + " vs load", XLabel: sw.LoadUnit(), YLabel: short + " (ms)",
		Caption: "Latency per step. Tails (p99, dashed) climb first when the server saturates; the SLA line (red) shows where a step stops meeting it, the dashed green line the largest load that met every SLA term and the dark line the saturation point.",
		VMarks:  loadMarks(sw), HMarks: slaMarks(sw, metric)}
	for i, st := range []struct {
		key, name string
		dashed    bool
	}{{"mean_" + metric + "_ms", "mean", false}, {"median_" + metric + "_ms", "median", false},
		{"p50_" + metric + "_ms", "p50", false}, {"p90_" + metric + "_ms", "p90", true}, {"p99_" + metric + "_ms", "p99", true}} {
		if st.name == "p50" && len(c.Series) > 0 && c.Series[len(c.Series)-1].Name == "median" {
			continue
		}
		if s := stepSeries(sw, st.key, st.name, i, st.dashed); len(s.XY) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return c
}

// SweepCharts are the sweep page's charts: throughput, TTFT, ITL and error
// rate against load, per-user against system throughput, and cost per
// million tokens when the steps carry it.
func SweepCharts(sw *Sweep) []Chart {
	tp := Chart{ID: "sweep-throughput", Title: "Output throughput vs load", XLabel: sw.LoadUnit(), YLabel: "output throughput (tokens/s)",
		Caption: "System throughput per step. It grows with load until the server saturates (dark line); past that point more load only adds latency. Steps crossed in red were limited by the client itself (harness-limited): their figures understate the server.",
		Series:  []Series{stepSeries(sw, metrics.KeyOutputThroughput, "output throughput", 0, false)}, VMarks: loadMarks(sw)}
	for i := range sw.Steps {
		if st := &sw.Steps[i]; st.HarnessLimited {
			v, _ := st.Figure(metrics.KeyOutputThroughput)
			tp.Points = append(tp.Points, Point{X: st.Load, Y: v, Label: "harness-limited"})
		}
	}
	pareto := Chart{ID: "sweep-pareto", Title: "Per-user vs system throughput", XLabel: "system output throughput (tokens/s)", YLabel: "per-user decode speed (tokens/s)",
		Caption: "Each dot is a step (labelled with its load where there is room): moving right serves more tokens per instance, moving down gives each user fewer tokens per second. Pick the step where the trade-off suits the product."}
	for i, key := range []string{"mean_per_user_tps", "p10_per_user_tps"} {
		s := Series{Name: strings.TrimSuffix(key, "_per_user_tps"), Dots: true, Color: i, Dashed: i == 1}
		for j := range sw.Steps {
			st := &sw.Steps[j]
			x, okX := st.Figure(metrics.KeyOutputThroughput)
			y, okY := st.Figure(key)
			if okX && okY {
				s.XY = append(s.XY, [2]float64{x, y})
				if i == 0 {
					pareto.Points = append(pareto.Points, Point{X: x, Y: y, Label: fmt.Sprintf("%g", st.Load), Plain: true})
				}
			}
		}
		if len(s.XY) > 0 {
			pareto.Series = append(pareto.Series, s)
		}
	}
	errs := Chart{ID: "sweep-errors", Title: "Error rate vs load", XLabel: sw.LoadUnit(), YLabel: "failed requests (%)",
		Caption: "The share of failed requests per step. Errors that appear with load (timeouts, 429s) are a capacity limit even when latency looks fine.",
		Series:  []Series{percentSeries(stepSeries(sw, "error_rate", "error rate", 3, false))}, VMarks: loadMarks(sw)}
	out := append([]Chart{tp}, ServerSweepCharts(sw)...) // chartdata_server.go
	out = append(out, latencyVsLoad(sw, "ttft", "TTFT"), latencyVsLoad(sw, "itl", "ITL"), pareto, errs)
	if s := stepSeries(sw, "usd_per_1m_output_tokens", "cost", 4, false); len(s.XY) > 0 {
		out = append(out, Chart{ID: "sweep-cost", Title: "Cost per million output tokens vs load", XLabel: sw.LoadUnit(), YLabel: "USD per 1M output tokens",
			Caption: "What a million generated tokens cost at each step's throughput: it falls as load rises and flattens at saturation.",
			Series:  []Series{s}, VMarks: loadMarks(sw)})
	}
	ticks := logTicks(sw)
	kept := out[:0]
	for _, c := range out {
		if c.XLabel == sw.LoadUnit() {
			c.XTicks = ticks
		}
		if !c.empty() {
			kept = append(kept, c)
		}
	}
	return kept
}

// percentSeries scales a series of fractions (0..1) to percent; a series
// with a value above 1 is taken to be in percent already.
func percentSeries(s Series) Series {
	for _, p := range s.XY {
		if p[1] > 1 {
			return s
		}
	}
	for i := range s.XY {
		s.XY[i][1] *= 100
	}
	return s
}

// logTicks returns the step loads when they form a ladder worth a log
// axis (all positive, largest at least 8 times the smallest), else nil.
func logTicks(sw *Sweep) []float64 {
	lo, hi := sw.Steps[0].Load, sw.Steps[len(sw.Steps)-1].Load
	if lo <= 0 || hi < 8*lo {
		return nil
	}
	t := make([]float64, len(sw.Steps))
	for i := range sw.Steps {
		t[i] = sw.Steps[i].Load
	}
	return t
}
