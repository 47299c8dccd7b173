package capacity

import (
	"fmt"
	"io"
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
			100*ScaleOutAt, num0(a.HPATargetInFlight), figure(a.InFlight), num0(a.SageMakerInvocationsTarget), num(a.MaxInvocationsPerMinute))
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
