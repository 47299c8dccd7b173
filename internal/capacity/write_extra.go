package capacity

import (
	"fmt"
	"io"
	"strings"
)

// hasUtilization reports whether any step carries utilisation figures.
func hasUtilization(s *Sweep) bool {
	for i := range s.Steps {
		if s.Steps[i].Utilization != nil {
			return true
		}
	}
	return false
}

// utilColumns are the utilisation figures in table and CSV order.
var utilColumns = []struct {
	csv, head string
	get       func(*Utilization) *float64
}{
	{"cpu_pct", "CPU %", func(u *Utilization) *float64 { return u.CPUPct }},
	{"memory_pct", "mem %", func(u *Utilization) *float64 { return u.MemoryPct }},
	{"gpu_pct", "GPU %", func(u *Utilization) *float64 { return u.GPUPct }},
	{"gpu_memory_pct", "GPU mem %", func(u *Utilization) *float64 { return u.GPUMemoryPct }},
	{"disk_pct", "disk %", func(u *Utilization) *float64 { return u.DiskPct }},
}

// extraColumns are the CSV's optional columns: usd_per_hour,
// usd_per_request, usd_per_1m_output_tokens when the sweep is priced;
// cpu_pct, memory_pct, gpu_pct, gpu_memory_pct, disk_pct and
// utilization_normalized when any step has utilisation.
func extraColumns(s *Sweep) []string {
	var out []string
	if s.Pricing != nil {
		out = append(out, "usd_per_hour", "usd_per_request", "usd_per_1m_output_tokens")
	}
	if hasUtilization(s) {
		for _, c := range utilColumns {
			out = append(out, c.csv)
		}
		out = append(out, "utilization_normalized")
	}
	return out
}

// extraCells are r's values of extraColumns.
func extraCells(s *Sweep, r *Row) []string {
	var out []string
	if s.Pricing != nil {
		out = append(out, optF(r.USDPerHour), optF(r.USDPerRequest), optF(r.USDPer1MOutputTokens))
	}
	if hasUtilization(s) {
		u := r.Utilization
		for _, c := range utilColumns {
			if u == nil {
				out = append(out, "")
			} else {
				out = append(out, optF(c.get(u)))
			}
		}
		if u == nil {
			out = append(out, "")
		} else {
			out = append(out, fmt.Sprint(u.Normalized))
		}
	}
	return out
}

// extraHead is the text table's optional header: $/hour, $/request and
// $ per 1M output tokens when priced, then the utilisation columns.
func extraHead(s *Sweep) string {
	var b strings.Builder
	if s.Pricing != nil {
		fmt.Fprintf(&b, " %8s %10s %9s", "$/hour", "$/request", "$/1M out")
	}
	if hasUtilization(s) {
		for _, c := range utilColumns {
			fmt.Fprintf(&b, " %9s", c.head)
		}
	}
	return b.String()
}

// extraText is r's part of the text table under extraHead ("-" for an
// unknown figure).
func extraText(s *Sweep, r *Row) string {
	var b strings.Builder
	if s.Pricing != nil {
		fmt.Fprintf(&b, " %8s %10s %9s", money(r.USDPerHour, 3), money(r.USDPerRequest, 6), money(r.USDPer1MOutputTokens, 3))
	}
	if hasUtilization(s) {
		for _, c := range utilColumns {
			v := "-"
			if r.Utilization != nil {
				if p := c.get(r.Utilization); p != nil {
					v = fmt.Sprintf("%.1f", *p)
				}
			}
			fmt.Fprintf(&b, " %9s", v)
		}
	}
	return b.String()
}

// money formats USD with prec decimals; "-" when unknown.
func money(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, *v)
}

// writeAtSLA writes the capacity at the largest load under the SLA
// (Inference Recommender's MaxInvocations, SLA-aware) and what it costs,
// and the utilisation notes.
func writeAtSLA(w io.Writer, s *Sweep) {
	a := s.AtSLA
	if a != nil {
		line := fmt.Sprintf("Max sustained under SLA: %s req/min (%.2f req/s, MaxInvocations under the SLA) at %s, %s out tok/s, %s tok/s per user",
			num(a.MaxInvocationsPerMinute), a.RequestThroughput, loadWords(a.Load, s.LoadKind), num(a.OutputThroughput), num(a.MeanPerUserTPS))
		if a.USDPer1MOutputTokens != nil {
			line += fmt.Sprintf("; $%.3f per 1M output tokens at $%.3f/hour", *a.USDPer1MOutputTokens, *a.USDPerHour)
		}
		fmt.Fprintln(w, line)
		fmt.Fprintf(w, "Scale-out targets (%g %% of that load): Kubernetes HPA averageValue %s requests in flight per pod (of %s); SageMaker target tracking on InvocationsPerInstance %s per minute (of %s)\n",
			100*ScaleOutAt, num0(a.HPATargetInFlight), num(a.InFlight), num0(a.SageMakerInvocationsTarget), num(a.MaxInvocationsPerMinute))
	}
	if p := s.Pricing; p != nil {
		inst := p.InstanceType
		if inst == "" {
			inst = "instance"
		}
		fmt.Fprintf(w, "Pricing (approximate): %s x%d at $%s per instance-hour (%s)\n", inst, max(p.InstanceCount, 1), f64(p.USDPerInstanceHour), p.Source)
	}
	if hasUtilization(s) {
		seen := map[string]bool{}
		for i := range s.Steps {
			u := s.Steps[i].Utilization
			if u == nil || u.Note == "" || seen[u.Note] {
				continue
			}
			seen[u.Note] = true
			fmt.Fprintf(w, "Utilization: %s\n", u.Note)
		}
	}
}
