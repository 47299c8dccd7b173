package htmlreport

import (
	"encoding/json"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/table"
)

// Options tune the pages.
type Options struct {
	// Title is the page title; "" = "llmbench report".
	Title string
	// Bounds are compare's --fail-if bounds: crossed ones are highlighted
	// on the compare page. Nil = none.
	Bounds []report.Bound
	// Alpha is compare's --alpha for the compare page's significance
	// marks; 0 = report.DefaultAlpha, ≥ 1 = no tests.
	Alpha float64
}

// Page is a report: one section per run, comparison or sweep.
type Page struct {
	Title    string
	Sections []Section
}

// Section is one part of a page: notes, tables and charts.
type Section struct {
	// Kind is "run", "compare" or "sweep".
	Kind  string
	Title string
	// Files are the files shown, one line each.
	Files []string
	// Notes are things the reader must know (missing data, interruption).
	Notes []string
	// Verdict is the sweep's verdict paragraph.
	Verdict string
	// Crossed are the --fail-if reasons.
	Crossed []string
	Tables  []table.Table
	Charts  []Chart
	// After are tables shown below the charts (details).
	After []table.Table
}

// newTable is a page table: the first column's header left, the others'
// right (over figures), keyed by their headers.
func newTable(title string, headers ...string) table.Table {
	t := table.Table{Title: title}
	for i, h := range headers {
		align := table.Right
		if i == 0 {
			align = table.Left
		}
		t.AddColumn(h, h, align)
	}
	return t
}

// Build loads the files and arranges them into a page: each sweep file
// its own section; one run file a run page; two or more a comparison
// (the first is the base) followed by nothing else.
func Build(paths []string, opt Options) (*Page, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no files to report on")
	}
	p := &Page{Title: opt.Title}
	if p.Title == "" {
		p.Title = "llmbench report"
	}
	var runs []*Run
	for _, path := range paths {
		in, err := Load(path)
		if err != nil {
			return nil, err
		}
		switch in.Kind {
		case KindPlan:
			p.Sections = append(p.Sections, planSection(path, in.Plan)) // page_plan.go
		case KindSweep:
			p.Sections = append(p.Sections, sweepSection(in.Sweep))
		case KindRun:
			runs = append(runs, in.Run)
		}
	}
	switch {
	case len(runs) == 1:
		p.Sections = append(p.Sections, runSection(runs[0]))
	case len(runs) > 1:
		s, err := compareSection(runs, opt.Bounds, opt.Alpha)
		if err != nil {
			return nil, err
		}
		p.Sections = append(p.Sections, s)
	}
	return p, nil
}

// headlineRows are the run facts shown above the figures compare knows.
var headlineRows = []report.CompareRow{
	{Key: "backend", Label: "Backend"},
	{Key: "model_id", Label: "Model"},
	{Key: metrics.KeyMaxConcurrency, Label: "Maximum request concurrency"},
	{Key: "request_rate", Label: "Request rate configured (RPS)"},
	{Key: metrics.KeyDuration, Label: "Benchmark duration (s)"},
}

// valueText is a result value as table text: numbers as compare prints
// them, strings as they are; ok false when absent or null.
func valueText(f *report.CompareFile, key string) (string, bool) {
	switch v := f.Values[key].(type) {
	case json.Number:
		return f.Text(key), true
	case string:
		return v, v != ""
	}
	return "", false
}

// headlineTable is the run's result table: vLLM's figures in its order.
func headlineTable(f *report.CompareFile) table.Table {
	t := newTable("Serving benchmark result", "Metric", "Value")
	rows := append(append([]report.CompareRow{}, headlineRows...), report.CompareRows([]*report.CompareFile{f})...)
	for _, r := range rows {
		if s, ok := valueText(f, r.Key); ok {
			t.Rows = append(t.Rows, []table.Cell{table.Words(r.Label), table.Figure(s)})
		}
	}
	return t
}

// runSection is the run page.
func runSection(run *Run) Section {
	s := Section{Kind: "run", Title: "Run: " + filepath.Base(run.Path), Files: []string{run.Path}}
	if run.RequestsFrom != "" {
		s.Notes = append(s.Notes, fmt.Sprintf("Per-request data: %s (%d requests).", run.RequestsFrom, len(run.Requests)))
	}
	if run.Result.Interrupted() {
		s.Notes = append(s.Notes, "This run was "+report.InterruptedNote+".")
	}
	s.Notes = append(s.Notes, run.Missing...)
	s.Tables = append(s.Tables, headlineTable(run.Result))
	if len(run.Requests) > 0 {
		s.Charts = append(s.Charts, DistributionCharts(run)...)
	} else {
		s.Charts = append(s.Charts, ProfileCharts([]*Run{run}, []string{"this run"})...)
	}
	s.Charts = append(s.Charts, OverTimeCharts([]*Run{run}, []string{""})...)
	s.Charts = append(s.Charts, ServerTimeCharts(run)...) // chartdata_server.go
	if c := TimelineChart(run); c != nil {
		s.Charts = append(s.Charts, *c)
	}
	if c := PerUserTPSChart(run); c != nil {
		s.Charts = append(s.Charts, *c)
	}
	if obj, ok := run.Result.Values[report.ExtrasKey].(map[string]any); ok {
		s.After = append(s.After, extrasTable("llmbench extras (client self-check, stream specifics)", withoutServerMetrics(obj)))
	}
	if t, ok := serverTable(run); ok {
		s.After = append(s.After, t)
	}
	for _, x := range []struct{ key, title string }{
		{"sagemaker", "SageMaker"}, {"cloudwatch", "CloudWatch"}, {"cost", "Cost"},
	} {
		if obj, ok := run.Result.Values[x.key].(map[string]any); ok {
			s.After = append(s.After, flatTable(x.title, obj))
		}
	}
	return s
}

// flatTable lists a nested JSON object as dotted keys and values.
func flatTable(title string, obj map[string]any) table.Table {
	t := newTable(title, "Key", "Value")
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				t.Rows = append(t.Rows, []table.Cell{table.Words(prefix), table.Words("none")})
			}
			for _, k := range sortedKeys(x) {
				walk(strings.TrimPrefix(prefix+"."+k, "."), x[k])
			}
		case []any:
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = fmt.Sprint(e)
			}
			text := strings.Join(parts, "; ")
			if text == "" {
				text = "none"
			}
			t.Rows = append(t.Rows, []table.Cell{table.Words(prefix), table.Words(text)})
		case nil:
			t.Rows = append(t.Rows, []table.Cell{table.Words(prefix), table.Words("null")})
		case json.Number:
			tmp := report.CompareFile{Values: map[string]any{"v": x}}
			t.Rows = append(t.Rows, []table.Cell{table.Words(prefix), table.Figure(tmp.Text("v"))})
		default:
			t.Rows = append(t.Rows, []table.Cell{table.Words(prefix), table.Figure(fmt.Sprint(x))})
		}
	}
	walk("", obj)
	return t
}

// chartPoints counts what a chart draws, for the page's data attributes.
func chartPoints(c *Chart) int {
	n := len(c.Bars) + len(c.Spans) + len(c.Points)
	for _, s := range c.Series {
		n += len(s.XY)
	}
	return n
}

// chartView is a chart ready for the template.
type chartView struct {
	Chart
	SVG    template.HTML
	Points int
}
