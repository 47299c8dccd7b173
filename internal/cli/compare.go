package cli

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/report"
)

// newCompareCmd builds "llmbench compare A.json B.json [C.json...]". The
// reading, the Δ% math, the bounds and the rendering live in package
// report; this binds the flags and maps errors to exit codes.
func newCompareCmd(env *Env) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BASE.json OTHER.json [MORE.json...] | compare SWEEP.json... [--need-users N | --need-rps R]",
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

Each change is tested for significance (docs/confidence.md): the latency
figures (mean, median, percentiles of TTFT, TPOT, ITL, E2EL) of two files
that carry per-request data (--save-detailed arrays, or the records file
saved beside the result) by a seeded bootstrap of the requests (2,000
resamples); figures with one value per run by a Mann-Whitney U test over
the runs a result holds, never with fewer than 4 runs a side. A Δ cell
then reads "+30.12% (p=0.001)" for a significant change or "+3.01% ~" for
one that is not significant at --alpha (0.05). Figures neither test can
reach keep their plain Δ%.

--fail-if KEY>BOUND (or <, >=, <=), repeatable, makes the command exit 1 when
a file after the first crosses the bound; BOUND is a change against the
first file in percent ("p99_ttft_ms>+10%", "request_throughput<-5%") or an
absolute value ("p99_ttft_ms>250"). KEY is any numeric key of the result
JSON. A relative bound crossed by a change that is not significant does not
fail (it is reported as such); --alpha 1 restores the plain threshold. Each
crossed bound is reported on its own line on stderr.

Below the table, each file's configuration (model, backend, request rate,
max concurrency, users, prompts, mean input and output tokens) is shown, with
a warning when a file differs from the first in more than one knob.

Sweep files (sweep-*.json, told apart by content) are compared as
candidates for one deployment (docs/instance-choice.md): one row per sweep,
headed by its --label, with the largest load under its SLA, the requests per
minute, output and per-user throughput, cost per hour and per million output
tokens and the instance utilisation there. --need-users N (or --need-rps R)
adds how many instances each candidate needs to carry that load within its
SLA (ceil of the need over its capacity), what they cost per hour and per
month (730 h), and recommends the cheapest; a candidate that never met its
SLA is listed as such and never recommended.`,
		Example: `  llmbench compare baseline.json candidate.json
  llmbench compare a.json b.json --fail-if 'p99_ttft_ms>+10%' --fail-if 'output_throughput<-5%'
  llmbench compare a.json b.json --fail-if 'p99_ttft_ms>+10%' --alpha 1   # plain threshold, no test
  llmbench compare sweep-g5-*.json sweep-g6e-*.json --need-users 200`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if ok, _ := report.IsSweepFile(args[0]); ok {
					return nil
				}
			}
			return argsBetween(2, -1, "want two or more result files")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(env, args)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "table", "output: table, json or csv")
	cmd.Flags().StringArrayVar(&o.bounds, "fail-if", nil, "exit 1 if a later file crosses KEY>BOUND or KEY<BOUND (+10% or 250); repeatable")
	cmd.Flags().StringVar(&o.htmlPath, "html", "", "also write the comparison as an HTML report with charts")
	cmd.Flags().Float64Var(&o.alpha, "alpha", report.DefaultAlpha, "significance level: a change is called when its p-value is under it; 1 = no tests, plain thresholds")
	cmd.Flags().Float64Var(&o.need.Users, "need-users", 0, "sweep files: concurrent users the deployment must serve within the SLA; sizes and prices each candidate")
	cmd.Flags().Float64Var(&o.need.RPS, "need-rps", 0, "sweep files: requests per second the deployment must serve within the SLA")
	return cmd
}

// compareOptions are compare's flags.
type compareOptions struct {
	format   string
	bounds   []string
	htmlPath string
	need     capacity.Need
	// alpha is --alpha (report.DefaultAlpha; ≥ 1 turns the tests off).
	alpha float64
}

// run compares result files (Δ%, --fail-if, --html) or sweep files
// (candidates, --need-users/--need-rps), by the files' content.
func (o *compareOptions) run(env *Env, args []string) error {
	if o.format != "table" && o.format != "json" && o.format != "csv" {
		return usageErrorf("--format %q: want table, json or csv", o.format)
	}
	if !(o.alpha > 0 && o.alpha <= 1) {
		return usageErrorf("--alpha %g: want a level in (0, 1], e.g. 0.05 (1 turns the tests off)", o.alpha)
	}
	sweeps, err := sweepArgs(args)
	if err != nil {
		return err
	}
	if sweeps {
		if len(o.bounds) > 0 || o.htmlPath != "" {
			return usageErrorf("--fail-if and --html compare result files; for sweep files use llmbench report SWEEP.json")
		}
		return compareSweeps(env, args, o.need, o.format)
	}
	if o.need.Users != 0 || o.need.RPS != 0 {
		return usageErrorf("--need-users and --need-rps compare sweep files (sweep-*.json), not results")
	}
	cmp, crossed, noise, err := loadComparison(args, o.bounds, o.alpha)
	if err != nil {
		return err
	}
	switch o.format {
	case "json":
		err = report.WriteComparisonJSON(env.Stdout, cmp, crossed)
	case "csv":
		err = report.WriteComparisonCSV(env.Stdout, cmp)
	default:
		err = report.WriteComparisonTable(env.Stdout, cmp)
	}
	if err != nil {
		return err
	}
	if o.htmlPath != "" {
		if err := writeCompareHTML(env, o.htmlPath, args, o.bounds, o.alpha); err != nil {
			return err
		}
	}
	for _, c := range noise {
		fmt.Fprintln(env.Stderr, "fail-if (ignored):", c.Reason)
	}
	for _, c := range crossed {
		fmt.Fprintln(env.Stderr, "fail-if:", c.Reason)
	}
	if len(crossed) > 0 {
		return &ExitError{Code: 1, Msg: fmt.Sprintf("%d --fail-if bound(s) crossed", len(crossed))}
	}
	return nil
}

// sweepArgs reports whether the files are sweep files: all of them (true)
// or none (false); a mix is a usage error.
func sweepArgs(paths []string) (bool, error) {
	n := 0
	for _, p := range paths {
		ok, err := report.IsSweepFile(p)
		if err != nil {
			return false, &UsageError{Err: err}
		}
		if ok {
			n++
		}
	}
	if n > 0 && n < len(paths) {
		return false, usageErrorf("compare takes result files or sweep files, not both (%d of %d are sweeps)", n, len(paths))
	}
	return n > 0, nil
}

// compareSweeps reads sweep files as candidates, sizes them for need and
// writes the table or JSON with the recommendation.
func compareSweeps(env *Env, paths []string, need capacity.Need, format string) error {
	if need.Users < 0 || need.RPS < 0 || (need.Users > 0 && need.RPS > 0) || math.IsInf(need.Users+need.RPS, 0) || math.IsNaN(need.Users+need.RPS) {
		return usageErrorf("give one of --need-users or --need-rps, a positive number")
	}
	files := make([]*report.SweepFile, len(paths))
	for i, p := range paths {
		f, err := report.ReadSweepFile(p)
		if err != nil {
			return &UsageError{Err: err}
		}
		files[i] = f
	}
	ch := capacity.Choose(report.SweepCandidates(files), need)
	switch format {
	case "json":
		return report.WriteChoiceJSON(env.Stdout, ch)
	case "csv":
		return report.WriteChoiceCSV(env.Stdout, ch)
	}
	return report.WriteChoiceTable(env.Stdout, ch)
}

// writeCompareHTML writes the compare page of paths, with the --fail-if
// bounds highlighted and changes judged at alpha, to path.
func writeCompareHTML(env *Env, path string, paths, bounds []string, alpha float64) error {
	opt := htmlreport.Options{Title: "llmbench compare", Alpha: alpha}
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
	// Through atomicfile (issue 30): an interrupted write never leaves a
	// half page where an old report was.
	if err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "Report written to %s\n", path)
	return nil
}

// loadComparison parses the --fail-if bounds, reads and labels the result
// files, judges the changes at alpha and evaluates the bounds: crossed
// fail the command, noise are crossings too small to be told from noise.
// Every error is bad input.
func loadComparison(paths, bounds []string, alpha float64) (c *report.Comparison, crossed, noise []report.Crossing, err error) {
	parsed := make([]report.Bound, len(bounds))
	for i, s := range bounds {
		b, err := report.ParseBound(s)
		if err != nil {
			return nil, nil, nil, &UsageError{Err: err}
		}
		parsed[i] = b
	}
	files := make([]*report.CompareFile, len(paths))
	for i, path := range paths {
		f, err := report.ReadCompareFile(path)
		if err != nil {
			return nil, nil, nil, &UsageError{Err: err}
		}
		files[i] = f
	}
	report.LabelCompareFiles(files)
	c = report.NewComparison(files, report.CompareOptions{Alpha: alpha})
	crossed, noise, err = c.CheckBounds(parsed)
	if err != nil {
		return nil, nil, nil, &UsageError{Err: err}
	}
	return c, crossed, noise, nil
}
