package cli

import (
	"errors"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
)

// metricsOptions are "llmbench metrics"'s flags.
type metricsOptions struct {
	format            string
	percentileMetrics string
	metricPercentiles string
	goodput           []string
	date              string
	detailed          bool
	extras            bool
	tokenizer         string
	// The steady-state flags, as run's (records do not carry them).
	noSteadyState        bool
	steadyStateThreshold float64
	steadyStateMinWindow flagset.OptFloat
}

// newMetricsCmd builds "llmbench metrics FILE".
func newMetricsCmd(env *Env) *cobra.Command {
	o := &metricsOptions{}
	cmd := &cobra.Command{
		Use:   "metrics FILE",
		Short: "Recompute all metrics from a per-request records file",
		Long: `Recompute vllm bench serve's metrics from saved per-request records and
print them as vLLM's result table, vLLM's result JSON or vLLM's automatic
result file name.

FILE ("-" for standard input) is either llmbench's JSON-lines records (a
header line {"llmbench_records":1,"params":{...}} then one record per line)
or the conformance input format ({"description","params","requests"}); the
format is detected from the first line.

The run's parameters come from the file; the flags below override them.
--format json prints the object vLLM saves with --save-result (with the
per-request arrays unless --save-detailed=false); for llmbench records it
appends an "llmbench" object with our own figures and, as run, vLLM's Rust
client's "steady_state" (--extras=false drops both). The steady-state flags
are run's, which the records do not keep.`,
		Example: `  llmbench metrics results.records.jsonl
  llmbench metrics run.input.json --format json --date 20260101-000000
  llmbench metrics run.records.jsonl --metric-percentiles 50,90,99 --goodput ttft:500 tpot:50`,
		Args: argsBetween(1, 1, `want one records file ("-" for standard input)`),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(env, cmd, args[0]) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.format, "format", "table", "output: table (vLLM's result table), json (vLLM's result JSON) or filename (vLLM's automatic result file name)")
	fs.StringVar(&o.percentileMetrics, "percentile-metrics", "", "override the metrics to report percentiles for, from ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue")
	fs.StringVar(&o.metricPercentiles, "metric-percentiles", "", "override the percentiles to report, e.g. 50,90,99.9")
	fs.StringArrayVar(&o.goodput, "goodput", nil, "override the goodput SLOs in ms as KEY:VALUE with keys ttft, tpot, e2el (e.g. --goodput ttft:500 tpot:30)")
	fs.StringVar(&o.date, "date", "", "the result's date as YYYYMMDD-HHMMSS (default: from the file, else now)")
	fs.BoolVar(&o.detailed, "save-detailed", true, "keep the per-request arrays in --format json, like vLLM's --save-detailed")
	fs.BoolVar(&o.extras, "extras", false, `append the "llmbench" object to --format json (default: on for llmbench records, off for conformance input)`)
	fs.StringVar(&o.tokenizer, "tokenizer", "", `override the tokenizer: "whitespace" (one token per word), "none" (like --skip-tokenizer-init), or the id recorded in the file`)
	fs.BoolVar(&o.noSteadyState, "no-steady-state", false, "leave out the steady_state figures of llmbench records of a closed-loop run (as run's flag; records do not keep it)")
	fs.Float64Var(&o.steadyStateThreshold, "steady-state-threshold", metrics.DefaultSteadyStateThreshold, "steady state: the window holds at least this fraction of max_concurrency in flight, in (0.0, 1.0] (as run's flag)")
	fs.Var(&o.steadyStateMinWindow, "steady-state-min-window", "steady state: warn when the window is shorter than this many seconds (default max(10, 10% of the run); as run's flag)")
	return cmd
}

// run checks the flags and recomputes the file's figures
// (report.Recompute); its input errors are usage errors.
func (o *metricsOptions) run(env *Env, cmd *cobra.Command, path string) error {
	if !slices.Contains([]string{"table", "json", "filename"}, o.format) {
		return usageErrorf("--format %q: want table, json or filename", o.format)
	}
	if err := checkSteadyStateFlags(o.steadyStateThreshold, o.steadyStateMinWindow); err != nil {
		return err
	}
	fl := cmd.Flags()
	r := report.Recompute{Overrides: o.overrides(fl), Now: time.Now(), Format: o.format, Detailed: o.detailed,
		Extras: flagset.Given(fl, "extras", &o.extras), SteadyState: metrics.SteadyStateOptions{Disabled: o.noSteadyState,
			Threshold: o.steadyStateThreshold, MinWindow: o.steadyStateMinWindow.Ptr()}}
	err := r.Run(path, env.Stdin, env.Stdout, env.Stderr)
	if ie := (*report.InputError)(nil); errors.As(err, &ie) {
		return &UsageError{Err: ie.Err}
	}
	return err
}

// overrides are the flags given, to be applied over the file's params.
func (o *metricsOptions) overrides(fl *pflag.FlagSet) metrics.Overrides {
	ov := metrics.Overrides{
		PercentileMetrics: flagset.Given(fl, "percentile-metrics", &o.percentileMetrics),
		MetricPercentiles: flagset.Given(fl, "metric-percentiles", &o.metricPercentiles),
		Tokenizer:         flagset.Given(fl, "tokenizer", &o.tokenizer),
		Date:              flagset.Given(fl, "date", &o.date),
	}
	if fl.Changed("goodput") {
		ov.Goodput = append([]string{}, o.goodput...)
	}
	return ov
}
