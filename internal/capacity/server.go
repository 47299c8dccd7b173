package capacity

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/servermetrics"
)

// ExplainKnee adds what the server's own metrics say about the sweep
// (docs/server-metrics.md): the saturation's Cause and CauseDetail
// (servermetrics.Cause at the knee step), a sentence saying it at the
// end of the verdict, and, when the server's prefix-cache hit rate rose
// across the steps of a dataset without shared prefixes, a note that
// later steps reused earlier steps' prompts. sharedPrefixes says the
// dataset is built on common prefixes (hits are then the point). The
// server's figures explain the knee; they never move it or the SLA
// verdict, which stay the client's.
//
// Call it after Analyze (and after any change to the verdict's text)
// on a sweep that read server metrics; a sweep without them is left as
// it is, so its file stays byte-identical.
func (s *Sweep) ExplainKnee(sharedPrefixes bool) {
	steps := make([]servermetrics.StepSummary, len(s.Steps))
	for i := range s.Steps {
		r := &s.Steps[i]
		steps[i] = servermetrics.StepSummary{Load: r.Load, Unit: loadUnit(s.LoadKind), Server: r.Server, MeanTPOTMs: r.MeanTPOTMs}
		if s.Saturation != nil && r.Load == s.Saturation.Load {
			steps[i].Knee = true
		}
	}
	if w := servermetrics.PrefixCacheWarning(steps, sharedPrefixes); w != "" {
		s.Notes = append(s.Notes, w)
	}
	if s.Saturation == nil {
		return
	}
	s.Saturation.Cause, s.Saturation.CauseDetail = servermetrics.Cause(steps)
	s.Verdict += " Why it saturates (the server's metrics): " + s.Saturation.CauseDetail + "."
}

// loadUnit is how servermetrics.Cause names a load of kind k.
func loadUnit(k Kind) string {
	switch k {
	case Concurrency:
		return "concurrent users"
	case Users:
		return "users"
	}
	return "req/s"
}

// lastServer is the server view of the last run of a load that has one
// (--runs K): the server's figures are per window, so they are not
// averaged across runs.
func lastServer(rows []Row) *servermetrics.Summary {
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Server != nil {
			return rows[i].Server
		}
	}
	return nil
}

// writeCause writes the saturation's cause under the text table's
// saturation line; nothing when the sweep read no server metrics.
func writeCause(w io.Writer, sat *Saturation) {
	if sat.Cause == "" {
		return
	}
	fmt.Fprintf(w, "Cause: %s (%s)\n", sat.Cause, sat.CauseDetail)
}
