package htmlreport

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
)

// Sweep is a sweep file as the sweep page shows it: the one sweep type,
// read by capacity.ReadSweep (steps in load order), and the file it came
// from. The page keeps no schema of its own: a copy that read only the
// steps' top-level numbers once drew the headline chart blank.
type Sweep struct {
	Path string
	*capacity.Sweep
}

// readSweep reads the sweep file at path.
func readSweep(path string) (*Sweep, error) {
	s, err := capacity.ReadSweep(path)
	if err != nil {
		return nil, err
	}
	return &Sweep{Path: path, Sweep: s}, nil
}

// LoadUnit names the sweep's load axis with its unit.
func (sw *Sweep) LoadUnit() string {
	switch sw.LoadKind {
	case capacity.RequestRate:
		return "request rate (req/s)"
	case capacity.Users:
		return "users (closed loop)"
	}
	return "max concurrency (requests)"
}

// sweepSection is the sweep page: verdict, SLA, steps and charts.
func sweepSection(sw *Sweep) Section {
	s := Section{Kind: "sweep", Title: "Sweep: " + sw.LoadUnit(), Files: []string{sw.Path}, Verdict: sw.Verdict}
	var terms []string
	for _, t := range sw.SLA {
		terms = append(terms, fmt.Sprintf("%s %s %g", t.Key, t.Op, t.Value))
	}
	if len(terms) > 0 {
		s.Notes = append(s.Notes, "SLA: "+strings.Join(terms, " and ")+".")
	}
	if l := sw.MaxLoadUnderSLA.Load; l != nil {
		b := ""
		if sw.MaxLoadUnderSLA.Binding != nil {
			b = " (binding: " + *sw.MaxLoadUnderSLA.Binding + ")"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("Max load under the SLA: %g%s%s.", *l, b, unresolvedWords(sw.MaxLoadUnderSLA.Resolved, sw.MaxLoadUnderSLA.LowerBound)))
	} else if len(terms) > 0 {
		s.Notes = append(s.Notes, "No step met the SLA.")
	}
	if sw.Saturation != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("Saturation at load %g (%.1f output tokens/s): %s.", sw.Saturation.Load, sw.Saturation.OutputThroughput, sw.Saturation.Rule))
	}
	// The sweep's own caveats (small samples, Little's law, the steady
	// window), as the console prints them after its table.
	s.Notes = append(s.Notes, sw.Notes...)
	s.Tables = append(s.Tables, *capacity.StepTable(sw.Sweep, capacity.StepPage))
	s.Charts = SweepCharts(sw)
	return s
}

// unresolvedWords is ", not resolved (…)" when the max load rests on
// steps whose SLA verdict is unresolved (docs/confidence.md), else "".
func unresolvedWords(resolved *bool, lower *float64) string {
	if resolved == nil || *resolved {
		return ""
	}
	if lower != nil {
		return fmt.Sprintf(", not resolved: surely met up to %g", *lower)
	}
	return ", not resolved: no load tested surely meets it"
}
