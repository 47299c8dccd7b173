package cloudwatch

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteTable prints the summary in the style of vLLM's result table, with
// the client's mean E2EL and mean TTFT (ms) beside SageMaker's latencies.
// Pass NaN (or a value <= 0) for a client figure that is not available.
// The comparison is labelled: ModelLatency's end point for a streamed
// response is not documented, so neither figure is claimed to equal it.
func WriteTable(w io.Writer, s *Summary, clientE2ELms, clientTTFTms float64) error {
	bw := bufio.NewWriter(w)
	line := func(label, v string) { fmt.Fprintf(bw, "%-40s %-10s\n", label, v) }
	fmt.Fprintln(bw, center(" SageMaker CloudWatch ", '='))
	line("Dimensions:", strings.Join(sortedDims(s.Dimensions), ","))
	line("Window (UTC):", fmt.Sprintf("%s .. %s", s.WindowStart.UTC().Format("2006-01-02T15:04:05Z"), s.WindowEnd.UTC().Format("15:04:05Z")))
	line("Invocations (CloudWatch):", optCount(s.Invocations))
	line("Requests sent by the client:", strconv.Itoa(s.RequestsSent))
	line("Invocation 4XX errors:", optCount(s.Invocation4XXErrors))
	line("Invocation 5XX errors:", optCount(s.Invocation5XXErrors))
	if s.MidStreamErrors != nil {
		line("Mid-stream errors:", optCount(s.MidStreamErrors))
	}
	sections := []struct {
		name string
		l    Latency
	}{{"ModelLatency", s.ModelLatency}, {"OverheadLatency", s.OverheadLatency}}
	if s.FirstChunkLatency != nil {
		sections = append(sections, struct {
			name string
			l    Latency
		}{"FirstChunkLatency", *s.FirstChunkLatency})
	}
	for _, m := range sections {
		fmt.Fprintln(bw, center(m.name, '-'))
		line("Samples:", strconv.FormatFloat(m.l.SampleCount, 'f', 0, 64))
		line("Mean (ms):", opt2(m.l.MeanMs))
		line("Min (ms):", opt2(m.l.MinMs))
		line("Max (ms):", opt2(m.l.MaxMs))
		if m.l.P50Ms != nil || m.l.P90Ms != nil || m.l.P99Ms != nil {
			line("P50 (ms):", opt2(m.l.P50Ms))
			line("P90 (ms):", opt2(m.l.P90Ms))
			line("P99 (ms):", opt2(m.l.P99Ms))
		}
	}
	if s.Utilization != nil {
		writeUtilization(bw, line, s.Utilization)
	}
	fmt.Fprintln(bw, center("Client vs SageMaker (means)", '-'))
	var both *float64
	if s.ModelLatency.MeanMs != nil && s.OverheadLatency.MeanMs != nil {
		v := *s.ModelLatency.MeanMs + *s.OverheadLatency.MeanMs
		both = &v
	}
	line("Model + Overhead Latency (ms):", opt2(both))
	line("Client Mean E2EL (ms):", client(clientE2ELms))
	if s.FirstChunkLatency != nil {
		line("FirstChunkLatency mean (ms):", opt2(s.FirstChunkLatency.MeanMs))
	}
	line("Client Mean TTFT (ms):", client(clientTTFTms))
	fmt.Fprintln(bw, "Note: whether ModelLatency ends at a streamed response's first or")
	fmt.Fprintln(bw, "last byte is not documented; compare the figures, do not equate them.")
	if s.Complete {
		fmt.Fprintf(bw, "CloudWatch complete after %d poll(s).\n", s.Polls)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintln(bw, "Warning:", warn)
	}
	fmt.Fprintln(bw, strings.Repeat("=", tableWidth))
	return bw.Flush()
}

// writeUtilization prints the instance utilisation section.
func writeUtilization(w io.Writer, line func(label, v string), u *Utilization) {
	fmt.Fprintln(w, center("Instance utilization", '-'))
	unit := "(% of instance)"
	if !u.Normalized {
		unit = "(% summed over units)"
	}
	line("CPU "+unit+":", opt2(u.CPUPct))
	line("Memory (%):", opt2(u.MemoryPct))
	line("GPU "+unit+":", opt2(u.GPUPct))
	line("GPU memory "+unit+":", opt2(u.GPUMemoryPct))
	line("Disk (%):", opt2(u.DiskPct))
	line("Minutes averaged:", strconv.Itoa(u.Minutes))
	if u.Note != "" {
		fmt.Fprintln(w, "Note:", u.Note)
	}
}

// tableWidth matches vLLM's 50-character headers.
const tableWidth = 50

// center is Python's "{:fill^50}".format(s).
func center(s string, fill byte) string {
	n := len([]rune(s))
	if n >= tableWidth {
		return s
	}
	left := (tableWidth - n) / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), tableWidth-n-left)
}

func opt2(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func optCount(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 0, 64)
}

func client(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
