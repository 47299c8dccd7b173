package cloudwatch

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/table"
)

// WriteTable prints the summary in the style of vLLM's result table, with
// the client's mean E2EL and mean TTFT (ms) beside SageMaker's latencies.
// Pass NaN (or a value <= 0) for a client figure that is not available.
// The comparison is labelled: ModelLatency's end point for a streamed
// response is not documented, so neither figure is claimed to equal it.
func WriteTable(w io.Writer, s *Summary, clientE2ELms, clientTTFTms float64) error {
	bw := bufio.NewWriter(w)
	section := func(t *table.Table, fill byte) {
		for _, l := range table.SectionLines(t, fill) {
			fmt.Fprintln(bw, l)
		}
	}
	section(headTable(s), '=')
	for _, t := range latencyTables(s) {
		section(t, '-')
	}
	if u := s.Utilization; u != nil {
		section(utilizationTable(u), '-')
		if u.Note != "" {
			fmt.Fprintln(bw, "Note:", u.Note)
		}
	}
	section(clientTable(s, clientE2ELms, clientTTFTms), '-')
	fmt.Fprintln(bw, "Note: whether ModelLatency ends at a streamed response's first or")
	fmt.Fprintln(bw, "last byte is not documented; compare the figures, do not equate them.")
	if s.Complete {
		fmt.Fprintf(bw, "CloudWatch complete after %d poll(s).\n", s.Polls)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintln(bw, "Warning:", warn)
	}
	fmt.Fprintln(bw, strings.Repeat("=", table.SectionWidth))
	return bw.Flush()
}

// headTable is the section's first part: what was read and the counts.
func headTable(s *Summary) *table.Table {
	t := table.NewLabelled(" SageMaker CloudWatch ")
	t.Add("Dimensions:", strings.Join(sortedDims(s.Dimensions), ","))
	t.Add("Window (UTC):", fmt.Sprintf("%s .. %s", s.WindowStart.UTC().Format("2006-01-02T15:04:05Z"), s.WindowEnd.UTC().Format("15:04:05Z")))
	t.Add("Invocations (CloudWatch):", optCount(s.Invocations))
	t.Add("Requests sent by the client:", strconv.Itoa(s.RequestsSent))
	t.Add("Invocation 4XX errors:", optCount(s.Invocation4XXErrors))
	t.Add("Invocation 5XX errors:", optCount(s.Invocation5XXErrors))
	if s.MidStreamErrors != nil {
		t.Add("Mid-stream errors:", optCount(s.MidStreamErrors))
	}
	return t
}

// latencyTables are ModelLatency, OverheadLatency and, when read,
// FirstChunkLatency: samples, mean, min, max and the percentiles read.
func latencyTables(s *Summary) []*table.Table {
	ls := []struct {
		name string
		l    *Latency
	}{{"ModelLatency", &s.ModelLatency}, {"OverheadLatency", &s.OverheadLatency}}
	if s.FirstChunkLatency != nil {
		ls = append(ls, struct {
			name string
			l    *Latency
		}{"FirstChunkLatency", s.FirstChunkLatency})
	}
	var out []*table.Table
	for _, m := range ls {
		t := table.NewLabelled(m.name)
		t.Add("Samples:", strconv.FormatFloat(m.l.SampleCount, 'f', 0, 64))
		t.Add("Mean (ms):", opt2(m.l.MeanMs))
		t.Add("Min (ms):", opt2(m.l.MinMs))
		t.Add("Max (ms):", opt2(m.l.MaxMs))
		if m.l.P50Ms != nil || m.l.P90Ms != nil || m.l.P99Ms != nil {
			t.Add("P50 (ms):", opt2(m.l.P50Ms))
			t.Add("P90 (ms):", opt2(m.l.P90Ms))
			t.Add("P99 (ms):", opt2(m.l.P99Ms))
		}
		out = append(out, t)
	}
	return out
}

// utilizationTable is the instance utilisation.
func utilizationTable(u *Utilization) *table.Table {
	t := table.NewLabelled("Instance utilization")
	unit := "(% of instance)"
	if !u.Normalized {
		unit = "(% summed over units)"
	}
	t.Add("CPU "+unit+":", opt2(u.CPUPct))
	t.Add("Memory (%):", opt2(u.MemoryPct))
	t.Add("GPU "+unit+":", opt2(u.GPUPct))
	t.Add("GPU memory "+unit+":", opt2(u.GPUMemoryPct))
	t.Add("Disk (%):", opt2(u.DiskPct))
	t.Add("Minutes averaged:", strconv.Itoa(u.Minutes))
	return t
}

// clientTable sets the client's means beside SageMaker's.
func clientTable(s *Summary, clientE2ELms, clientTTFTms float64) *table.Table {
	t := table.NewLabelled("Client vs SageMaker (means)")
	var both *float64
	if s.ModelLatency.MeanMs != nil && s.OverheadLatency.MeanMs != nil {
		v := *s.ModelLatency.MeanMs + *s.OverheadLatency.MeanMs
		both = &v
	}
	t.Add("Model + Overhead Latency (ms):", opt2(both))
	t.Add("Client Mean E2EL (ms):", client(clientE2ELms))
	if s.FirstChunkLatency != nil {
		t.Add("FirstChunkLatency mean (ms):", opt2(s.FirstChunkLatency.MeanMs))
	}
	t.Add("Client Mean TTFT (ms):", client(clientTTFTms))
	return t
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
