package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/report"
)

// newReportCmd builds "llmbench report FILE... [-o report.html]".
func newReportCmd(env *Env) *cobra.Command {
	var (
		out, format, title string
		bounds             []string
	)
	cmd := &cobra.Command{
		Use:   "report FILE...",
		Short: "Write an HTML report with charts (or a text one) from saved results",
		Long: `Draw saved results as one self-contained HTML file: charts are inline SVG and
nothing is loaded from the network, so the file opens offline, from file://
or as a CI artifact, in light and dark mode, and prints.

FILE is any of: llmbench's result JSON (with --save-detailed for the
per-request charts; a records file saved beside it, NAME.records.jsonl, is
used when present), a records file (*.records.jsonl), vllm bench serve's own
--save-result file, or a sweep file (sweep-*.json). The kind is told from
the content.

One run gives a run page: the result table, TTFT/TPOT/ITL/E2EL histograms
and CDFs with the reported percentiles (and goodput SLOs) marked, output
throughput per second, the requests in flight at every instant (counted
from the records; vLLM's per-second peak stays in the table), a
per-request timeline and per-user decode speed. Two or more runs give a compare page (the first is
the base): the Δ% table, with bounds given by --fail-if highlighted, and the
figures overlaid. A sweep file gives a sweep page: throughput, TTFT, ITL and
error rate against load with the saturation point, the SLA lines and the
largest load that meets the SLA, per-user against system throughput, and
the verdict.

--format text prints the tables and small text histograms instead (for a
terminal over SSH); it goes to standard output unless -o is given.`,
		Example: `  llmbench report bench_results/run.json -o run.html
  llmbench report base.json candidate.json --fail-if 'p99_ttft_ms>+10%' -o compare.html
  llmbench report sweep-20260101-000000.json -o sweep.html
  llmbench report run.records.jsonl --format text`,
		Args: argsBetween(1, -1, "want one or more result, records or sweep files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := htmlreport.ParseFormat(format)
			if err != nil {
				return &UsageError{Err: err}
			}
			parsed, err := report.ParseBounds(bounds)
			if err != nil {
				return &UsageError{Err: err}
			}
			page, err := htmlreport.Build(args, htmlreport.Options{Title: title, Bounds: parsed})
			if err != nil {
				return &UsageError{Err: err}
			}
			b, err := htmlreport.Render(page, f)
			if err != nil {
				return err
			}
			if f == htmlreport.FormatText && !cmd.Flags().Changed("output") || out == "-" {
				_, err := env.Stdout.Write(b)
				return err
			}
			if err := writeUserFile(out, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "Report written to %s\n", out)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&out, "output", "o", "report.html", `file to write ("-" for standard output)`)
	fs.StringVar(&format, "format", "html", "html (one file with charts) or text (tables, text histograms)")
	fs.StringVar(&title, "title", "", `the page title (default "llmbench report")`)
	fs.StringArrayVar(&bounds, "fail-if", nil, "highlight crossed bounds on the compare page, as in compare (exit code unchanged)")
	return cmd
}
