package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
	"github.com/llmbench/llmbench/internal/table"
)

// serverMetricsKey is the llmbench object's key of the server's own
// metrics (--server-metrics, docs/server-metrics.md).
const serverMetricsKey = "server_metrics"

// serverRoles are the families the run page draws over time, by role,
// in the order servermetrics' summary reads them (vLLM, SGLang, TGI).
var serverRoles = struct{ running, waiting, kv []string }{
	running: []string{"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size"},
	waiting: []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size"},
	kv:      []string{"vllm:kv_cache_usage_perc", "sglang:token_usage"},
}

// serverMetricsOf is a run's llmbench.server_metrics object; nil when the
// run did not read them.
func serverMetricsOf(run *Run) map[string]any {
	x, _ := run.Result.Values[report.ExtrasKey].(map[string]any)
	sm, _ := x[serverMetricsKey].(map[string]any)
	return sm
}

// number is a JSON number as the pages hold it (json.Number or float64).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	}
	return 0, false
}

// serverSamples adds up, instant by instant, the samples of the first
// family of role the server exposed (every replica's series are stamped
// with the same instant per scrape, so they add up to the fleet's), or
// takes their largest (fraction gauges such as KV usage): (seconds after
// the window's start, value), sorted by time. name is the family drawn.
func serverSamples(sm map[string]any, role []string, largest bool) (xy [][2]float64, name string) {
	fams, _ := sm["families"].(map[string]any)
	for _, n := range role {
		f, ok := fams[n].(map[string]any)
		if !ok {
			continue
		}
		at := map[float64]float64{}
		series, _ := f["series"].([]any)
		for _, s := range series {
			sobj, _ := s.(map[string]any)
			samples, _ := sobj["samples"].([]any)
			for _, p := range samples {
				pair, _ := p.([]any)
				if len(pair) != 2 {
					continue
				}
				t, ok1 := number(pair[0])
				v, ok2 := number(pair[1])
				if !ok1 || !ok2 {
					continue
				}
				if old, seen := at[t]; largest && seen {
					at[t] = max(old, v)
				} else {
					at[t] = old + v
				}
			}
		}
		for _, t := range slices.Sorted(maps.Keys(at)) {
			xy = append(xy, [2]float64{t, at[t]})
		}
		return xy, n
	}
	return nil, ""
}

// firstSend is the run's first request's send time on the records'
// clock: the client's over-time charts count from it.
func firstSend(run *Run) float64 {
	t0, found := 0.0, false
	for i := range run.Requests {
		if r := &run.Requests[i]; r.OK && (!found || r.Start < t0) {
			t0, found = r.Start, true
		}
	}
	return t0
}

// ServerTimeCharts are the run page's charts of the server's own view
// over time, on the client's time axis (seconds since the first
// request): requests running and waiting, and KV-cache usage. The
// server's samples count from the metrics window's start, taken just
// before the run's clock starts, so they are shifted by the first
// request's send time. Nil when the run read no server metrics.
func ServerTimeCharts(run *Run) []Chart {
	sm := serverMetricsOf(run)
	if sm == nil {
		return nil
	}
	t0 := firstSend(run)
	shift := func(xy [][2]float64, scale float64) [][2]float64 {
		out := make([][2]float64, 0, len(xy))
		for _, p := range xy {
			out = append(out, [2]float64{max(0, p[0]-t0), p[1] * scale})
		}
		return out
	}
	batch := Chart{ID: "server-batch-time", Title: "Server: running and waiting requests over time",
		XLabel: "time since the first request (s)", YLabel: "requests (server's gauges)",
		Caption: "The server's own count of requests in its running batch and in its queue, read from its /metrics at each scrape (--server-metrics), on the same time axis as the charts above. A running line flat at its top while the waiting line climbs is a full batch (the batch limit); waiting with a low running line points at the KV cache. These figures explain the client's numbers; they never decide the SLA verdict."}
	if xy, name := serverSamples(sm, serverRoles.running, false); len(xy) > 0 {
		batch.Series = append(batch.Series, Series{Name: "running (" + name + ")", XY: shift(xy, 1), Dots: true, Color: 0})
	}
	if xy, name := serverSamples(sm, serverRoles.waiting, false); len(xy) > 0 {
		batch.Series = append(batch.Series, Series{Name: "waiting (" + name + ")", XY: shift(xy, 1), Dots: true, Color: 1, Dashed: true})
	}
	kv := Chart{ID: "server-kv-time", Title: "Server: KV-cache usage over time",
		XLabel: "time since the first request (s)", YLabel: "KV-cache usage (%)",
		Caption: "The share of the server's KV cache in use at each scrape (the largest replica's). Near 100 % the server preempts requests (they are recomputed later) or stops admitting new ones: the KV cache, not the batch size, is then the limit."}
	if xy, name := serverSamples(sm, serverRoles.kv, true); len(xy) > 0 {
		kv.Series = append(kv.Series, Series{Name: "KV usage (" + name + ")", XY: shift(xy, 100), Dots: true, Color: 2})
	}
	var out []Chart
	for _, c := range []Chart{batch, kv} {
		if !c.empty() {
			out = append(out, c)
		}
	}
	return out
}

// serverTable is the run page's "Server Specifics" table: the summary of
// the server's metrics and the URLs read (the families and their samples
// are in the result file and drawn above).
func serverTable(run *Run) (table.Table, bool) {
	sm := serverMetricsOf(run)
	if sm == nil {
		return table.Table{}, false
	}
	keep := map[string]any{}
	if s, ok := sm["summary"]; ok {
		keep["summary"] = s
	}
	if e, ok := sm["endpoints"].([]any); ok {
		for i, ep := range e {
			keep[fmt.Sprintf("endpoint %d", i+1)] = ep
		}
	}
	return flatTable(report.ServerSpecifics+" (the server's own metrics)", keep), true
}

// withoutServerMetrics is the llmbench object without server_metrics,
// whose families and samples are too many for the extras table; its
// summary has a table of its own (serverTable).
func withoutServerMetrics(obj map[string]any) map[string]any {
	if _, ok := obj[serverMetricsKey]; !ok {
		return obj
	}
	out := maps.Clone(obj)
	delete(out, serverMetricsKey)
	return out
}

// stepServer is one server figure of a sweep step; ok false when the step
// did not read it.
func stepServer(sw *Sweep, i int, get func(*servermetrics.Summary) *float64) (float64, bool) {
	s := sw.Steps[i].Server
	if s == nil {
		return 0, false
	}
	p := get(s)
	if p == nil {
		return 0, false
	}
	return *p, true
}

// serverStepSeries is one server figure over the steps, scaled.
func serverStepSeries(sw *Sweep, name string, color int, dashed bool, scale float64, get func(*servermetrics.Summary) *float64) Series {
	s := Series{Name: name, Dots: true, Color: color, Dashed: dashed}
	for i := range sw.Steps {
		if v, ok := stepServer(sw, i, get); ok {
			s.XY = append(s.XY, [2]float64{sw.Steps[i].Load, v * scale})
		}
	}
	return s
}

// causeMarks are the sweep's load marks with the saturation line naming
// the knee's cause, when the sweep read server metrics.
func causeMarks(sw *Sweep) []Mark {
	m := loadMarks(sw)
	if sat := sw.Saturation; sat != nil && sat.Cause != "" {
		for i := range m {
			if m[i].Kind == MarkSaturation {
				m[i].Label = fmt.Sprintf("saturation: %g, cause: %s", sat.Load, sat.Cause)
			}
		}
	}
	return m
}

// ServerSweepCharts are the sweep page's charts of the server's own view
// against load, drawn under the throughput chart: running and waiting
// requests, KV-cache usage at its highest and preemptions, with the
// knee's cause on the saturation line; and energy per output token when
// a DCGM exporter was read. Nil when no step read server metrics.
func ServerSweepCharts(sw *Sweep) []Chart {
	batch := Chart{ID: "sweep-server-batch", Title: "Server: running and waiting requests vs load", XLabel: sw.LoadUnit(), YLabel: "requests (server's gauges)",
		Caption: "The server's own running batch and queue at each step (--server-metrics): the most seen (solid) and the mean over the step's scrapes (dashed). Running flat at its top while waiting grows is the batch limit; the saturation line names the cause the sweep found (docs/server-metrics.md).",
		VMarks:  causeMarks(sw)}
	for _, s := range []Series{
		serverStepSeries(sw, "running, max", 0, false, 1, func(s *servermetrics.Summary) *float64 { return s.RunningMax }),
		serverStepSeries(sw, "running, mean", 0, true, 1, func(s *servermetrics.Summary) *float64 { return s.RunningMean }),
		serverStepSeries(sw, "waiting, max", 1, false, 1, func(s *servermetrics.Summary) *float64 { return s.WaitingMax }),
		serverStepSeries(sw, "waiting, mean", 1, true, 1, func(s *servermetrics.Summary) *float64 { return s.WaitingMean }),
	} {
		if len(s.XY) > 0 {
			batch.Series = append(batch.Series, s)
		}
	}
	kv := Chart{ID: "sweep-server-kv", Title: "Server: KV-cache usage vs load", XLabel: sw.LoadUnit(), YLabel: "KV-cache usage, max (%)",
		Caption: "The highest KV-cache usage the server reported at each step. From 90 % on, or with any preemption, the KV cache is what limits the batch (cause kv_cache).",
		Series:  []Series{serverStepSeries(sw, "KV usage, max", 2, false, 100, func(s *servermetrics.Summary) *float64 { return s.KVCacheUsageMax })}, VMarks: causeMarks(sw)}
	pre := Chart{ID: "sweep-server-preemptions", Title: "Server: preemptions vs load", XLabel: sw.LoadUnit(), YLabel: "requests preempted in the step",
		Caption: "Requests the server evicted from its batch to free KV cache during each step; each one is recomputed later, which costs throughput and latency.",
		Series:  []Series{serverStepSeries(sw, "preemptions", 3, false, 1, func(s *servermetrics.Summary) *float64 { return s.Preemptions })}, VMarks: causeMarks(sw)}
	energy := Chart{ID: "sweep-energy", Title: "Energy per output token vs load", XLabel: sw.LoadUnit(), YLabel: "GPU energy per output token (J)",
		Caption: "The GPUs' energy counters' growth over each step (DCGM exporter) divided by the output tokens the client received. It falls as batching spreads the GPU's power over more tokens and flattens at saturation.",
		Series:  []Series{serverStepSeries(sw, "energy per token", 4, false, 1, func(s *servermetrics.Summary) *float64 { return s.EnergyPerOutputTokenJ })}, VMarks: loadMarks(sw)}
	var out []Chart
	for _, c := range []Chart{batch, kv, pre, energy} {
		if !c.empty() {
			out = append(out, c)
		}
	}
	return out
}

// addRecordsServerMetrics puts the server metrics a records file's
// closing line carries (record.ReadEndExtras) into the run's llmbench
// object, as a result file holds them, so that a page drawn from the
// records alone shows the server's view too. A file without them, or
// one that cannot be read again, is left as it is.
func addRecordsServerMetrics(run *Run, path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	ex, err := record.ReadEndExtras(f)
	if err != nil || ex[serverMetricsKey] == nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(ex[serverMetricsKey]))
	dec.UseNumber()
	var sm map[string]any
	if dec.Decode(&sm) != nil {
		return
	}
	x, ok := run.Result.Values[report.ExtrasKey].(map[string]any)
	if !ok {
		x = map[string]any{}
		run.Result.Values[report.ExtrasKey] = x
	}
	x[serverMetricsKey] = sm
}

// setExtra sets key in obj as the saved result has it: "parent/child"
// inside the object parent (run's "llmbench/self_check",
// "llmbench/server_metrics"), else at the top. Without it a run's --html
// page looked for them inside llmbench and found nothing.
func setExtra(obj *report.Object, key string, v any) {
	if parent, child, ok := strings.Cut(key, "/"); ok {
		if p, found := obj.Get(parent); found {
			if po, isObj := p.(*report.Object); isObj {
				po.Set(child, v)
				return
			}
		}
	}
	obj.Set(key, v)
}
