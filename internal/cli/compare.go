package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/report"
)

// newCompareCmd builds "llmbench compare A.json B.json [C.json...]". The
// reading, the Δ% math, the bounds and the rendering live in package
// report; this binds the flags and maps errors to exit codes.
func newCompareCmd(env *Env) *cobra.Command {
	var (
		format   string
		bounds   []string
		htmlPath string
	)
	cmd := &cobra.Command{
		Use:   "compare BASE.json OTHER.json [MORE.json...]",
		Short: "Compare result files side by side with the change against the first",
		Long: `Compare the headline figures of two or more result files side by side: token
totals, request/output/total throughput, peak concurrency, goodput and the
mean, median and every saved percentile (P50, P99, ...) of TTFT, TPOT, ITL
and E2EL, each with its change (Δ%) against the first file.

Columns are headed by short labels (the results' own --label values when
each file has a distinct short one, else A, B, C, ...); a legend above the
table maps them to the files. An interrupted run (Ctrl-C) is marked "*".

Both llmbench's result JSON and vllm bench serve's own --save-result files
are read. A file written with --append-result holds one object per line;
the last one is compared (the legend says so).

--fail-if KEY>BOUND (or <, >=, <=), repeatable, makes the command exit 1 when
a file after the first crosses the bound; BOUND is a change against the
first file in percent ("p99_ttft_ms>+10%", "request_throughput<-5%") or an
absolute value ("p99_ttft_ms>250"). KEY is any numeric key of the result
JSON. Each crossed bound is reported on its own line on stderr.`,
		Example: `  llmbench compare baseline.json candidate.json
  llmbench compare a.json b.json --fail-if 'p99_ttft_ms>+10%' --fail-if 'output_throughput<-5%'`,
		Args: argsBetween(2, -1, "want two or more result files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "json" {
				return usageErrorf("--format %q: want table or json", format)
			}
			files, crossed, err := loadComparison(args, bounds)
			if err != nil {
				return err
			}
			if format == "json" {
				err = report.WriteCompareJSON(env.Stdout, files, crossed)
			} else {
				err = report.WriteCompareTable(env.Stdout, files)
			}
			if err != nil {
				return err
			}
			if htmlPath != "" {
				if err := writeCompareHTML(env, htmlPath, args, bounds); err != nil {
					return err
				}
			}
			for _, c := range crossed {
				fmt.Fprintln(env.Stderr, "fail-if:", c.Reason)
			}
			if len(crossed) > 0 {
				return &ExitError{Code: 1, Msg: fmt.Sprintf("%d --fail-if bound(s) crossed", len(crossed))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output: table or json")
	cmd.Flags().StringArrayVar(&bounds, "fail-if", nil, "exit 1 if a later file crosses KEY>BOUND or KEY<BOUND (+10% or 250); repeatable")
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write the comparison as an HTML report with charts")
	return cmd
}

// writeCompareHTML writes the compare page of paths, with the --fail-if
// bounds highlighted, to path.
func writeCompareHTML(env *Env, path string, paths, bounds []string) error {
	opt := htmlreport.Options{Title: "llmbench compare"}
	for _, s := range bounds {
		b, err := report.ParseBound(s)
		if err != nil {
			return &UsageError{Err: err}
		}
		opt.Bounds = append(opt.Bounds, b)
	}
	var buf bytes.Buffer
	if err := htmlreport.WriteFiles(&buf, paths, opt); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "Report written to %s\n", path)
	return nil
}

// loadComparison parses the --fail-if bounds, reads and labels the result
// files and evaluates the bounds; every error is bad input.
func loadComparison(paths, bounds []string) ([]*report.CompareFile, []report.Crossing, error) {
	parsed := make([]report.Bound, len(bounds))
	for i, s := range bounds {
		b, err := report.ParseBound(s)
		if err != nil {
			return nil, nil, &UsageError{Err: err}
		}
		parsed[i] = b
	}
	files := make([]*report.CompareFile, len(paths))
	for i, path := range paths {
		f, err := report.ReadCompareFile(path)
		if err != nil {
			return nil, nil, &UsageError{Err: err}
		}
		files[i] = f
	}
	report.LabelCompareFiles(files)
	crossed, err := report.CheckBounds(files, parsed)
	if err != nil {
		return nil, nil, &UsageError{Err: err}
	}
	return files, crossed, nil
}
