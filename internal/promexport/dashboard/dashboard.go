// Package dashboard builds llmbench's Grafana dashboard
// (deploy/grafana/llmbench-dashboard.json) from Go code with the Grafana
// Foundation SDK, so its queries live beside the exporter they read and a
// test checks each against the metric names the exporter exposes.
//
// Regenerate the JSON after a change with
//
//	go test ./internal/promexport/dashboard -update
//
// The dashboard shows what a load test and a production server have in
// common: TTFT, ITL, TPOT and E2EL p50/p95/p99 over time with the SLA
// lines of deploy/prometheus/alerts.yml, throughput and token goodput,
// requests in flight against the concurrency cap, errors by class, the
// client's own health, and the server's own queue and KV cache from
// vLLM's /metrics (which the simulator reproduces). One template variable per label (run_id, backend,
// model, phase) plus the Prometheus data source.
package dashboard

//lint:file-ignore SA1019 the classic dashboard JSON (schema v1) is what Grafana 9-12 import from a file or the UI; schema v2 needs Grafana 12's new dashboard API behind a feature flag

import (
	"encoding/json"
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// UID is the dashboard's stable uid (Grafana URLs and re-imports).
const UID = "llmbench-live"

// SLA lines drawn on the latency and error panels: the thresholds of
// deploy/prometheus/alerts.yml. Change both together.
const (
	TTFTSLA      = 0.5   // seconds, p99
	ITLSLA       = 0.030 // seconds, p99
	ErrorRateSLA = 0.01  // failed / finished requests
)

// sel is the label selector every query applies: the template variables.
const sel = `run_id=~"$run_id", backend=~"$backend", model=~"$model", phase=~"$phase"`

// selRun is sel without phase, for the series that have no phase label
// (the client self-check covers the whole run).
const selRun = `run_id=~"$run_id", backend=~"$backend", model=~"$model"`

// Variables are the template variables, one per label, in display order.
var Variables = []string{"run_id", "backend", "model", "phase"}

// JSON returns the dashboard as indented JSON with a final newline: the
// content of deploy/grafana/llmbench-dashboard.json.
func JSON() ([]byte, error) {
	d, err := Build()
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Build returns the dashboard.
func Build() (dashboard.Dashboard, error) {
	b := dashboard.NewDashboardBuilder("llmbench — live benchmark").
		Uid(UID).
		Description("Live metrics of llmbench runs and sweeps (llmbench run --metrics-addr): vLLM's TTFT, TPOT, ITL and E2EL, throughput, goodput, errors and the client's own health.").
		Tags([]string{"llmbench", "llm", "vllm", "benchmark"}).
		Refresh("5s").
		Time("now-15m", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus"))
	for _, v := range Variables {
		b = b.WithVariable(labelVariable(v))
	}
	b = b.WithRow(dashboard.NewRowBuilder("Latency (vLLM definitions)"))
	for _, p := range latencyPanels() {
		b = b.WithPanel(p)
	}
	b = b.WithRow(dashboard.NewRowBuilder("Load and throughput"))
	for _, p := range loadPanels() {
		b = b.WithPanel(p)
	}
	b = b.WithRow(dashboard.NewRowBuilder("Errors and the client's own health"))
	for _, p := range healthPanels() {
		b = b.WithPanel(p)
	}
	b = b.WithRow(dashboard.NewRowBuilder("Server (vLLM's /metrics, or llmbench sim's)"))
	for _, p := range serverPanels() {
		b = b.WithPanel(p)
	}
	d, err := b.Build()
	if err != nil {
		return d, fmt.Errorf("dashboard: %w", err)
	}
	numberPanels(&d)
	return d, nil
}

// numberPanels gives rows and panels ids 1, 2, ... in layout order (ids
// must be unique within a dashboard; the builders leave them unset).
func numberPanels(d *dashboard.Dashboard) {
	for i := range d.Panels {
		id := uint32(i + 1)
		if p := d.Panels[i].Panel; p != nil {
			p.Id = &id
		}
		if r := d.Panels[i].RowPanel; r != nil {
			r.Id = id
		}
	}
}

// labelVariable is a multi-select variable over label's values on
// llmbench_requests_total (every run has it), "All" by default.
func labelVariable(label string) *dashboard.QueryVariableBuilder {
	q := fmt.Sprintf("label_values(llmbench_requests_total, %s)", label)
	all := "$__all"
	return dashboard.NewQueryVariableBuilder(label).
		Label(label).
		Datasource(datasource()).
		Query(dashboard.StringOrMap{String: &q}).
		Definition(q).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).
		IncludeAll(true).
		AllValue(".*").
		Current(dashboard.VariableOption{
			Text:  dashboard.StringOrArrayOfString{String: cog.ToPtr("All")},
			Value: dashboard.StringOrArrayOfString{String: &all},
		})
}

func datasource() common.DataSourceRef {
	return common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}
}

// query is one PromQL target with its legend; refID names it within its
// panel (A, B, ...).
func query(refID, expr, legend string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().RefId(refID).Datasource(datasource()).
		Expr(expr).LegendFormat(legend).Range()
}

// panel is a time series panel with the house defaults.
func panel(title, desc, unit string, w uint32) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().
		Title(title).
		Description(desc).
		Datasource(datasource()).
		Unit(unit).
		Min(0).
		Height(8).
		Span(w).
		FillOpacity(5).
		ShowPoints(common.VisibilityModeNever).
		Legend(common.NewVizLegendOptionsBuilder().
			DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).
			ShowLegend(true).
			Calcs([]string{"lastNotNull", "max"})).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti).Sort(common.SortOrderDescending))
}

// slaLine draws a red line at limit (thresholds as a line).
func slaLine(p *timeseries.PanelBuilder, limit float64) *timeseries.PanelBuilder {
	return p.
		Thresholds(dashboard.NewThresholdsConfigBuilder().
			Mode(dashboard.ThresholdsModeAbsolute).
			Steps([]dashboard.Threshold{
				{Value: nil, Color: "green"},
				{Value: cog.ToPtr(limit), Color: "red"},
			})).
		ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeDashed))
}
