package htmlreport

import (
	"fmt"

	"github.com/llmbench/llmbench/internal/report"
)

// compareSection is the compare page: legend, Δ% table with each
// change's significance and bootstrap interval, crossed bounds
// highlighted, the runs' configuration, and the figures of every run
// overlaid. alpha is compare's --alpha (0 = report.DefaultAlpha).
func compareSection(runs []*Run, bounds []report.Bound, alpha float64) (Section, error) {
	files := make([]*report.CompareFile, len(runs))
	for i, r := range runs {
		files[i] = r.Result
		// A records file's run holds its requests in memory only.
		if len(r.Requests) > 0 && r.RequestsFrom == "records file" {
			useRequests(r)
		}
	}
	report.LabelCompareFiles(files)
	c := report.NewComparison(files, report.CompareOptions{Alpha: alpha})
	crossed, noise, err := c.CheckBounds(bounds)
	if err != nil {
		return Section{}, err
	}
	labels := make([]string, len(files))
	for i, f := range files {
		labels[i] = f.Label
	}
	s := Section{Kind: "compare", Title: fmt.Sprintf("Comparison of %d runs (Δ%% against %s)", len(runs), files[0].Label),
		Files: report.CompareLegend(files)}
	for _, cr := range crossed {
		s.Crossed = append(s.Crossed, cr.Reason)
	}
	for _, cr := range noise {
		s.Notes = append(s.Notes, "--fail-if "+cr.Reason+".")
	}
	for i, r := range runs {
		if len(r.Requests) == 0 {
			s.Notes = append(s.Notes, labels[i]+": no per-request data; it appears in the percentile charts only.")
		}
	}
	if n := c.Notes(); n != nil {
		s.Notes = append(s.Notes, n...)
		s.Notes = append(s.Notes, "[low, high]: the bootstrap's 95 % interval of the relative change.")
	}
	s.Tables = append(s.Tables, *c.DeltaTable(crossed, true).Without("key"))
	if t, warnings := report.ConfigTable(files); t != nil {
		s.Tables = append(s.Tables, *t)
		s.Notes = append(s.Notes, warnings...)
	}
	s.Charts = append(s.Charts, CDFOverlayCharts(runs, labels)...)
	s.Charts = append(s.Charts, ProfileCharts(runs, labels)...)
	s.Charts = append(s.Charts, OverTimeCharts(runs, labels)...)
	return s, nil
}

// useRequests hands a run's successful requests to its result for the
// significance tests.
func useRequests(r *Run) {
	var ttfts, lats []float64
	var itls [][]float64
	var outs []int
	for _, q := range r.Requests {
		if !q.OK {
			continue
		}
		ttfts, lats, itls, outs = append(ttfts, q.TTFT), append(lats, q.E2EL), append(itls, q.ITL), append(outs, q.OutputLen)
	}
	r.Result.UseRequests(ttfts, lats, itls, outs, r.RequestsFrom)
}
