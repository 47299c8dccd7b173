package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/htmlreport"
)

// The end of a sweep: the analysis, its files and the exit status.

// finish analyses what was measured and writes the table, the verdict,
// the sweep file and its CSV.
func (d *sweepDriver) finish(ctx context.Context) error {
	if len(d.rows) == 0 {
		if ctx.Err() != nil {
			return &ExitError{Code: 130, Msg: "interrupted before the first step finished; nothing was measured"}
		}
		return fmt.Errorf("no step finished: %s", d.stopped)
	}
	d.readUtilization(ctx)
	an, err := capacity.Analyze(d.kind, d.sla, d.rows)
	if err != nil {
		return err
	}
	an.Label = d.label()
	price, err := d.o.sm.pricing()
	if err != nil {
		return &UsageError{Err: err}
	}
	an.Price(price)
	an.Notes = append(an.Notes, d.late...)
	d.amendVerdict(an)
	if d.o.f.srv.spec != "" {
		an.ExplainKnee(d.o.sharedPrefixes()) // servermetrics.go
	}
	if an.Worker = d.o.w.info; an.Worker != nil {
		// Loads name the whole step (so the workers' steps match), while
		// the figures are this worker's share: only the merge is the
		// sweep (its Little's-law check, too).
		an.Notes = append(an.Notes, fmt.Sprintf("worker %d of %d: each row measures this worker's share of the step's load; run llmbench merge on all the workers' sweeps for the analysis", an.Worker.Index, an.Worker.Count))
	}
	fmt.Fprintln(d.ui.out)
	if err := capacity.WriteText(d.ui.out, an); err != nil {
		return err
	}
	path := d.sweepPath()
	if err := writeFileWith(path, func(w io.Writer) error { return capacity.WriteJSON(w, an) }); err != nil {
		return fmt.Errorf("saving the sweep: %w", err)
	}
	csvPath := strings.TrimSuffix(path, ".json") + ".csv"
	if err := writeFileWith(csvPath, func(w io.Writer) error { return capacity.WriteCSV(w, an) }); err != nil {
		return fmt.Errorf("saving the sweep: %w", err)
	}
	fmt.Fprintf(d.ui.out, "Sweep saved to %s (rows: %s; step results in %s/)\n", path, csvPath, d.dir)
	if h := d.o.f.htmlPath; h != "" {
		err := writeFileWith(h, func(w io.Writer) error {
			return htmlreport.WriteFiles(w, []string{path}, htmlreport.Options{Title: "llmbench sweep: " + d.label()})
		})
		if err != nil {
			return fmt.Errorf("writing the HTML report: %w", err)
		}
		fmt.Fprintf(d.ui.out, "HTML report written to %s\n", h)
	}
	if d.stopped != "" && d.dead == "" {
		fmt.Fprintf(d.ui.out, "Note: the sweep stopped early: %s.\n", d.stopped)
	}
	if ctx.Err() != nil {
		return &ExitError{Code: 130, Msg: "interrupted: the analysis above covers the finished steps"}
	}
	if d.dead != "" {
		return &ExitError{Code: 1, Msg: "the server stopped answering: " + d.dead}
	}
	return d.requireLoad(an)
}

// amendVerdict adds to the verdict what the analysis of the rows cannot
// know: the failure share a step may have (when --max-error-rate set
// the SLA's error_rate term) and a server that stopped answering.
func (d *sweepDriver) amendVerdict(an *capacity.Sweep) {
	if d.o.gate {
		an.Verdict += fmt.Sprintf(" A step meets the SLA only with at most %s of its requests failed (--max-error-rate %s).",
			pctWords(d.o.maxErrorRate()), strconv.FormatFloat(d.o.maxErrorRate(), 'f', -1, 64))
	}
	if d.dead != "" {
		an.Verdict = "the server stopped answering (" + d.dead + "), so the sweep ended there; over the steps before: " + an.Verdict
	}
}

// pctWords is a fraction as a percentage in words: 0.01 is "1 %".
func pctWords(f float64) string {
	return strconv.FormatFloat(100*f, 'f', -1, 64) + " %"
}

// requireLoad is --require-load's gate.
func (d *sweepDriver) requireLoad(an *capacity.Sweep) error {
	need := d.o.s.requireLoad
	if need <= 0 {
		return nil
	}
	ml := an.MaxLoadUnderSLA.Load
	if ml != nil && *ml >= need {
		return nil
	}
	got := "no load tested"
	if ml != nil {
		got = strconv.FormatFloat(*ml, 'f', -1, 64)
	}
	return &ExitError{Code: 1, Msg: fmt.Sprintf("--require-load %s: the largest %s under the SLA is %s", strconv.FormatFloat(need, 'f', -1, 64), d.kind, got)}
}

// writeFileWith writes a file through a temporary name in the same folder
// and renames it into place, so no reader sees half a file (writeUserFile).
func writeFileWith(path string, write func(io.Writer) error) error {
	return writeUserFile(path, write)
}
