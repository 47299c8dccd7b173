package capacity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/table"
)

// FileName is the sweep file's name: sweep-{label}-{kind}-{date}.json,
// label being e.g. the endpoint or model name ("/" replaced by "_") and
// date the run's timestamp (20260101-000000). The CSV takes .csv.
func FileName(label string, kind Kind, date string) string {
	label = strings.ReplaceAll(label, "/", "_")
	return fmt.Sprintf("sweep-%s-%s-%s.json", label, kind, date)
}

// WriteJSON writes the sweep file (see Sweep), indented by two spaces,
// with a trailing newline. Map keys come sorted, so output is
// deterministic.
func WriteJSON(w io.Writer, s *Sweep) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<" stays "<" in SLA terms and verdicts
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteCSV writes one line per step with the columns of StepCSV.
func WriteCSV(w io.Writer, s *Sweep) error {
	return table.WriteCSV(w, StepTable(s, StepCSV))
}

func f64(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteText writes the sweep as a table, one line per step, then the
// saturation point, the max load under the SLA, the notes and the
// verdict. Columns: load, completed requests, request and output throughput, mean/p99 TTFT,
// mean/p99 ITL, mean TPOT (ms), mean/p10 per-user TPS, error rate, and
// SLA (pass, FAIL, ? unresolved, or - without an SLA); a flag column
// marks H (harness-limited) and L (Little's law off); cost and
// utilisation columns follow when the sweep has them (StepText). After the max
// load under the SLA comes the capacity there (see writeAtSLA).
func WriteText(w io.Writer, s *Sweep) error {
	bw := bufio.NewWriter(w)
	if err := table.WriteText(bw, StepTable(s, StepText), TextStyle); err != nil {
		return err
	}
	if len(s.SLA) > 0 {
		fmt.Fprintf(bw, "SLA: %s\n", s.SLA)
	}
	if sat := s.Saturation; sat != nil {
		fmt.Fprintf(bw, "Saturation: %s at ~%s tok/s (%s)\n", loadWords(sat.Load, s.LoadKind), num(sat.OutputThroughput), sat.Evidence)
		writeCause(bw, sat)
	} else {
		fmt.Fprintln(bw, "Saturation: not seen")
	}
	if ml := s.MaxLoadUnderSLA; len(s.SLA) > 0 {
		load, binding := "none", "-"
		if ml.Load != nil {
			load = loadWords(*ml.Load, s.LoadKind)
		}
		if ml.Binding != nil {
			binding = *ml.Binding
		}
		if ml.Resolved != nil && !*ml.Resolved {
			sure := "none"
			if ml.LowerBound != nil {
				sure = loadWords(*ml.LowerBound, s.LoadKind)
			}
			load += ", not resolved (steps marked ?): surely met up to " + sure
		}
		fmt.Fprintf(bw, "Max load under SLA: %s (binding: %s)\n", load, binding)
	}
	writeAtSLA(bw, s)
	for _, n := range s.Notes {
		fmt.Fprintf(bw, "Note: %s\n", n)
	}
	fmt.Fprintf(bw, "Verdict: %s\n", s.Verdict)
	return bw.Flush()
}
