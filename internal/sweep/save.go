package sweep

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/report"
)

// The end of a sweep for the user: the analysis on the console, the
// sweep file, its CSV and the HTML report. Every file goes through
// package atomicfile with the mode of every saved result
// (report.FileMode: they hold server text), so a full disk or a failed
// render leaves what the path held before, never a cut file.

// CSVPath is the path of the CSV of the sweep's rows, beside its file.
func (d *Driver) CSVPath() string { return d.Dir() + ".csv" }

// Save writes the analysis to the sweep file (Path) and its rows to the
// CSV (CSVPath).
func (d *Driver) Save(an *capacity.Sweep) error {
	if err := writeFile(d.Path(), func(w io.Writer) error { return capacity.WriteJSON(w, an) }); err != nil {
		return err
	}
	return writeFile(d.CSVPath(), func(w io.Writer) error { return capacity.WriteCSV(w, an) })
}

// Report prints the analysis of res to out, saves the sweep's files
// and, with html (not ""), the HTML report there, saying where each
// went, and why the sweep stopped early when it did (a dead server is
// the verdict's to say). The exit status is the command's.
func (d *Driver) Report(out io.Writer, res *Result, html string) error {
	an := res.Sweep
	fmt.Fprintln(out)
	if err := capacity.WriteText(out, an); err != nil {
		return err
	}
	if err := d.Save(an); err != nil {
		return fmt.Errorf("saving the sweep: %w", err)
	}
	fmt.Fprintf(out, "Sweep saved to %s (rows: %s; step results in %s/)\n", d.Path(), d.CSVPath(), d.Dir())
	if html != "" {
		err := writeFile(html, func(w io.Writer) error {
			return htmlreport.WriteFiles(w, []string{d.Path()}, htmlreport.Options{Title: "llmbench sweep: " + an.Label})
		})
		if err != nil {
			return fmt.Errorf("writing the HTML report: %w", err)
		}
		fmt.Fprintf(out, "HTML report written to %s\n", html)
	}
	if res.Stopped != "" && res.Dead == "" {
		fmt.Fprintf(out, "Note: the sweep stopped early: %s.\n", res.Stopped)
	}
	return nil
}

func writeFile(path string, fill func(io.Writer) error) error {
	return atomicfile.Write(path, report.FileMode, fill)
}
