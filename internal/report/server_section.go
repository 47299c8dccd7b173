package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/servermetrics"
)

// ServerSpecifics is the title of the section that shows the server's own
// metrics under the table (--server-metrics, docs/server-metrics.md).
const ServerSpecifics = "Server Specifics"

// ServerSpecificsLines returns the "Server Specifics" section: the
// summary of the server's metrics over the timed window, one figure a
// line in vLLM's "{:<40} {:<10}" layout; a figure the server did not
// expose is left out. The section explains the client's figures above
// it; it never replaces them.
func ServerSpecificsLines(r *servermetrics.Result) []string {
	s := &r.Summary
	server := s.Server
	if server == "" {
		server = "not recognised"
	}
	l := []string{
		Center(" "+ServerSpecifics+" ", '='),
		lineStr("Server:", server),
		lineStr("Scrapes (errors):", fmt.Sprintf("%d (%d)", s.Scrapes, s.ScrapeErrors)),
	}
	add := func(label string, v *float64, format func(float64) string) {
		if v != nil {
			l = append(l, lineStr(label, format(*v)))
		}
	}
	add("Running requests, mean:", s.RunningMean, fixed2)
	add("Running requests, max:", s.RunningMax, srvWhole)
	add("Waiting requests, mean:", s.WaitingMean, fixed2)
	add("Waiting requests, max:", s.WaitingMax, srvWhole)
	add("KV-cache usage, max (%):", s.KVCacheUsageMax, srvPct)
	add("Preemptions:", s.Preemptions, srvWhole)
	add("Prefix-cache hit rate (%):", s.PrefixCacheHitRate, srvPct)
	add("Generation tokens:", s.GenerationTokens, srvWhole)
	add("Prompt tokens:", s.PromptTokens, srvWhole)
	add("Generation tokens / client's:", s.GenerationTokensVsClient, fixed2)
	add("Mean queue time (ms):", s.QueueTimeMeanS, srvMs)
	add("Mean server TTFT (ms):", s.ServerTTFTMeanS, srvMs)
	add("GPU utilisation, mean (%):", s.GPUUtilizationMean, srvPct)
	add("GPU power, mean (W):", s.PowerMeanW, fixed2)
	add("GPU energy (J):", s.EnergyJ, fixed2)
	add("Energy per output token (J):", s.EnergyPerOutputTokenJ, srvFixed4)
	return append(l, strings.Repeat("=", Width))
}

// WriteServerSpecifics writes the section (see ServerSpecificsLines).
func WriteServerSpecifics(w io.Writer, r *servermetrics.Result) error {
	return writeLines(w, ServerSpecificsLines(r))
}

func srvWhole(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
func srvPct(v float64) string   { return fixed2(100 * v) }
func srvMs(v float64) string    { return fixed2(1000 * v) }
func srvFixed4(v float64) string {
	return strconv.FormatFloat(v, 'f', 4, 64)
}
