package htmlreport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/table"
)

// extraLabels name the keys of the result's llmbench object (see
// report.Result and docs/metrics.md, docs/fidelity.md, docs/capacity.md),
// in the order the table shows them. Keys not listed here still appear,
// after these, under their dotted key.
var extraLabels = []struct{ key, label string }{
	{"interrupted", "Run interrupted"},
	{"endpoint_name", "SageMaker endpoint"},
	{"client_queue_time", "Client queue time: waiting for a concurrency slot (ms)"},
	{"ttft_from_intended", "TTFT from the scheduled send time, queueing and lag included (ms)"},
	{"e2el_from_intended", "E2EL from the scheduled send time, queueing and lag included (ms)"},
	{"dispatch_lag", "Dispatch lag: send time − schedule − queue time (ms)"},
	{"per_user_tps_n", "Per-user decode speed: requests counted"},
	{"mean_per_user_tps", "Per-user decode speed, mean (tok/s)"},
	{"median_per_user_tps", "Per-user decode speed, median (tok/s)"},
	{perUserPercentiles, ""},
	{"system_output_tps", "System output throughput (tok/s)"},
	{"token_goodput", "Token goodput: natural stops meeting the SLOs (tok/s)"},
	{"token_goodput_tokens", "Token goodput: tokens"},
	{"token_goodput_requests", "Token goodput: requests"},
	{"per_turn", "TTFT by conversation turn (ms)"},
	{"stream.truncated_length", "Streams cut at max_tokens (finish_reason length)"},
	{"stream.stopped_eos", "Streams that stopped on their own (EOS)"},
	{"stream.finish_reason_unknown", "Streams without a finish_reason"},
	{"stream.without_usage", "Streams without a usage frame"},
	{"stream.output_token_sources", "Output token counts taken from"},
	{"stream.errors", "Failures by error class"},
	{"warnings", "Warnings"},
	{"self_check.verdict", "Client self-check"},
	{"self_check.reasons", "Self-check: reasons"},
	{"self_check.cpu_utilization", "Client CPU, share of usable cores"},
	{"self_check.cpu_seconds", "Client CPU time (s)"},
	{"self_check.cores", "Usable cores"},
	{"self_check.sched_latency_p99_ms", "Go scheduler latency p99 (ms)"},
	{"self_check.dispatch_lag_p99_ms", "Dispatch lag p99 (ms)"},
	{"self_check.target_rate", "Request rate asked for (req/s)"},
	{"self_check.achieved_rate", "Request rate achieved (req/s)"},
	{"self_check.events", "Token chunks received"},
	{"self_check.events_per_second", "Token chunks per second"},
	{"self_check.connections_opened", "Connections opened"},
	{"self_check.preconnected", "Connections opened before the run (--preconnect)"},
	{"self_check.wall_seconds", "Wall time (s)"},
}

// perUserPercentiles stands in extraLabels for the pNN_per_user_tps keys,
// shown in percentile order.
const perUserPercentiles = "pNN_per_user_tps"

// extrasTable lists the result's llmbench object as labelled figures:
// Figure (what it is, with its unit), Value, and Key (where it sits in
// the result JSON). A latency summary ({n, mean_ms, ...}) is one row; so
// is a count by name (error classes, token count sources) and each turn.
func extrasTable(title string, obj map[string]any) table.Table {
	t := newTable(title, "Figure", "Value", "Key")
	done := map[string]bool{}
	row := func(key, label string, v any) {
		done[key] = true
		t.Rows = append(t.Rows, []table.Cell{table.Words(label), extraValue(key, v), table.Words(key)})
	}
	for _, l := range extraLabels {
		if l.key == perUserPercentiles {
			// p1, p5, p10 today: the slow end of the per-user view.
			var pus []string
			for k := range obj {
				if strings.HasPrefix(k, "p") && strings.HasSuffix(k, "_per_user_tps") {
					pus = append(pus, k)
				}
			}
			slices.SortFunc(pus, func(a, b string) int { return cmp.Compare(pctOf(a), pctOf(b)) })
			for _, k := range pus {
				row(k, fmt.Sprintf("Per-user decode speed, %s: %s %% of requests were slower (tok/s)",
					strings.TrimSuffix(k, "_per_user_tps"), strconv.FormatFloat(pctOf(k), 'f', -1, 64)), obj[k])
			}
			continue
		}
		if v, ok := lookup(obj, l.key); ok {
			row(l.key, l.label, v)
		}
	}
	// Anything newer than this table: its dotted key for a label.
	var rest []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if done[prefix] {
			return
		}
		if m, ok := v.(map[string]any); ok && len(m) > 0 && !isStats(m) && !isIntervals(m) {
			for _, k := range sortedKeys(m) {
				walk(strings.TrimPrefix(prefix+"."+k, "."), m[k])
			}
			return
		}
		rest = append(rest, prefix)
	}
	walk("", obj)
	for _, k := range rest {
		v, _ := lookup(obj, k)
		row(k, k, v)
	}
	return t
}

// pctOf is the percentile of a pNN_per_user_tps key.
func pctOf(key string) float64 {
	p, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(key, "p"), "_per_user_tps"), 64)
	return p
}

// lookup finds a dotted key in obj.
func lookup(obj map[string]any, key string) (any, bool) {
	var v any = obj
	for _, part := range strings.Split(key, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

// isStats reports whether m is a latency summary: n and mean_ms.
func isStats(m map[string]any) bool {
	_, n := m["n"]
	_, mean := m["mean_ms"]
	return n && mean
}

// isIntervals reports whether m is one metric's per-run intervals in
// llmbench.ci: n, mean and median ({low, high} or null).
func isIntervals(m map[string]any) bool {
	_, n := m["n"]
	_, mean := m["mean"]
	_, median := m["median"]
	return n && mean && median
}

// intervalsText is one metric's intervals in one line, in the order
// saved: "mean 12.1–13.0 · median 11.9–12.4 · p99 none (n 100)".
func intervalsText(m map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		if k == "n" {
			continue
		}
		iv, _ := m[k].(map[string]any)
		lo, okLo := iv["low"].(json.Number)
		hi, okHi := iv["high"].(json.Number)
		text := "none"
		if okLo && okHi {
			text = numText(lo) + "–" + numText(hi)
		}
		parts = append(parts, k+" "+text)
	}
	out := strings.Join(parts, " · ")
	if n, ok := m["n"].(json.Number); ok {
		out += " (n " + n.String() + ")"
	}
	return out
}

// extraValue is a value's cell: numbers as compare prints
// them, a share of cores in percent, a summary as "mean 1.2 · median ...
// (n 60)", counts by name as "name 3, other 1", lists joined by "; ".
func extraValue(key string, v any) table.Cell {
	switch x := v.(type) {
	case json.Number:
		if key == "self_check.cpu_utilization" {
			f, _ := x.Float64()
			return table.Figure(strconv.FormatFloat(100*f, 'f', 1, 64) + " %")
		}
		return table.Figure(numText(x))
	case bool:
		if x {
			return table.Words("yes")
		}
		return table.Words("no")
	case nil:
		return table.Words("null")
	case string:
		return table.Words(x)
	case map[string]any:
		if len(x) == 0 {
			return table.Words("none")
		}
		if isStats(x) {
			return table.Words(statsText(x))
		}
		if isIntervals(x) {
			return table.Words(intervalsText(x))
		}
		parts := make([]string, 0, len(x))
		for _, k := range sortedKeys(x) {
			t := extraValue("", x[k]).Text
			parts = append(parts, k+" "+t)
		}
		return table.Words(strings.Join(parts, ", "))
	case []any:
		if len(x) == 0 {
			return table.Words("none")
		}
		parts := make([]string, len(x))
		for i, e := range x {
			if m, ok := e.(map[string]any); ok && key == "per_turn" {
				parts[i] = turnText(m)
				continue
			}
			parts[i] = extraValue("", e).Text
		}
		return table.Words(strings.Join(parts, "; "))
	}
	return table.Words(fmt.Sprint(v))
}

// numText prints a number as compare's tables do.
func numText(n json.Number) string {
	f := report.CompareFile{Values: map[string]any{"v": n}}
	return f.Text("v")
}

// statsText is a latency summary in one line: mean, median, std, then
// the percentiles in order, then the count.
func statsText(m map[string]any) string {
	var parts []string
	for _, k := range []string{"mean_ms", "median_ms", "std_ms"} {
		if n, ok := m[k].(json.Number); ok {
			parts = append(parts, strings.TrimSuffix(k, "_ms")+" "+numText(n))
		}
	}
	var ps []string
	for k := range m {
		if strings.HasPrefix(k, "p") && strings.HasSuffix(k, "_ms") {
			ps = append(ps, k)
		}
	}
	pv := func(k string) float64 {
		p, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(k, "p"), "_ms"), 64)
		return p
	}
	slices.SortFunc(ps, func(a, b string) int { return cmp.Compare(pv(a), pv(b)) })
	for _, k := range ps {
		if n, ok := m[k].(json.Number); ok {
			parts = append(parts, strings.TrimSuffix(k, "_ms")+" "+numText(n))
		}
	}
	out := strings.Join(parts, " · ")
	if n, ok := m["n"].(json.Number); ok {
		out += " (n " + n.String() + ")"
	}
	return out
}

// turnText is one turn of per_turn: "turn 2: mean 40.1 · ... (n 9)".
func turnText(m map[string]any) string {
	stats := map[string]any{}
	for k, v := range m {
		if k == "n" || strings.HasSuffix(k, "_ttft_ms") {
			stats[strings.Replace(k, "_ttft_ms", "_ms", 1)] = v
		}
	}
	turn := ""
	if n, ok := m["turn"].(json.Number); ok {
		turn = "turn " + n.String() + ": "
	}
	return turn + statsText(stats)
}
