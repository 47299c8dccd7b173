package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/savedfile"
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
				if k, _ := savedfile.Sniff(args[0]); k == savedfile.Sweep {
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
	if err := report.CheckCompareOptions(o.format, o.alpha); err != nil {
		return &UsageError{Err: err}
	}
	sweeps, err := savedfile.AllSweeps(args)
	if err != nil {
		return &UsageError{Err: err}
	}
	if sweeps {
		return o.sweeps(env, args)
	}
	if o.need.Users != 0 || o.need.RPS != 0 {
		return usageErrorf("--need-users and --need-rps compare sweep files (sweep-*.json), not results")
	}
	bounds, err := report.ParseBounds(o.bounds)
	if err != nil {
		return &UsageError{Err: err}
	}
	cmp, crossed, noise, err := report.LoadComparison(args, bounds, o.alpha)
	if err != nil {
		return &UsageError{Err: err}
	}
	if err := report.WriteComparison(env.Stdout, cmp, crossed, o.format); err != nil {
		return err
	}
	if o.htmlPath != "" {
		if err := htmlreport.WriteFile(o.htmlPath, args, htmlreport.Options{Title: "llmbench compare", Alpha: o.alpha, Bounds: bounds}); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "Report written to %s\n", o.htmlPath)
	}
	report.WriteCrossings(env.Stderr, crossed, noise)
	if len(crossed) > 0 {
		return &ExitError{Code: 1, Msg: fmt.Sprintf("%d --fail-if bound(s) crossed", len(crossed))}
	}
	return nil
}

// sweeps compares sweep files as candidates, sized for --need-users or
// --need-rps, with the recommendation.
func (o *compareOptions) sweeps(env *Env, paths []string) error {
	if len(o.bounds) > 0 || o.htmlPath != "" {
		return usageErrorf("--fail-if and --html compare result files; for sweep files use llmbench report SWEEP.json")
	}
	if !o.need.Valid() {
		return usageErrorf("give one of --need-users or --need-rps, a positive number")
	}
	files, err := savedfile.ReadSweeps(paths)
	if err != nil {
		return &UsageError{Err: err}
	}
	return report.WriteChoice(env.Stdout, capacity.Choose(report.SweepCandidates(files), o.need), o.format)
}
