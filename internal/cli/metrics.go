package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// newMetricsCmd builds "llmbench metrics FILE".
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
	steadyStateMinWindow optFloat
}

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

// run reads the file, applies the overrides, and prints.
func (o *metricsOptions) run(env *Env, cmd *cobra.Command, path string) error {
	switch o.format {
	case "table", "json", "filename":
	default:
		return usageErrorf("--format %q: want table, json or filename", o.format)
	}
	if err := checkSteadyStateFlags(o.steadyStateThreshold, o.steadyStateMinWindow); err != nil {
		return err
	}
	p, recs, fileFormat, err := readRecords(env, path)
	if err != nil {
		return err
	}
	if err := o.override(cmd, &p); err != nil {
		return err
	}
	if !cmd.Flags().Changed("extras") {
		o.extras = fileFormat == record.FormatJSONLines
	}
	if o.format == "filename" {
		_, err := fmt.Fprintln(env.Stdout, report.ResultFilename(&p))
		return err
	}
	s, err := summarizeRecords(&p, recs)
	if err != nil {
		return err
	}
	if err := report.WriteWarnings(env.Stderr, s); err != nil {
		return err
	}
	noteUnfinished(env.Stderr, &p, len(recs))
	return o.print(env.Stdout, s, &p, recs, fileFormat)
}

// readRecords reads a records file, or standard input for "-".
func readRecords(env *Env, path string) (record.Params, []record.Record, record.Format, error) {
	if path != "-" {
		p, recs, f, err := record.ReadFile(path)
		if err != nil {
			return p, nil, 0, &UsageError{Err: err}
		}
		return p, recs, f, nil
	}
	p, recs, f, err := record.Read(env.Stdin)
	if err != nil {
		return p, nil, 0, &UsageError{Err: fmt.Errorf("stdin: %w", err)}
	}
	return p, recs, f, nil
}

// override applies the flags given over the file's parameters.
func (o *metricsOptions) override(cmd *cobra.Command, p *record.Params) error {
	fl := cmd.Flags()
	if fl.Changed("percentile-metrics") {
		p.PercentileMetrics = o.percentileMetrics
	}
	if fl.Changed("metric-percentiles") {
		p.MetricPercentiles = o.metricPercentiles
	}
	if fl.Changed("goodput") {
		g, err := metrics.ParseGoodput(o.goodput)
		if err != nil {
			return &UsageError{Err: err}
		}
		p.Goodput = g
	}
	if fl.Changed("tokenizer") {
		p.Tokenizer = o.tokenizer
	}
	if fl.Changed("date") {
		if _, err := time.Parse(bench.DateLayout, o.date); err != nil {
			return usageErrorf("--date %q: want YYYYMMDD-HHMMSS", o.date)
		}
		p.Date = o.date
	}
	if p.Date == "" {
		p.Date = time.Now().Format(bench.DateLayout)
	}
	return nil
}

// noteUnfinished says when the figures cover only part of a run.
func noteUnfinished(w io.Writer, p *record.Params, n int) {
	switch {
	case p.Unfinished:
		fmt.Fprintf(w, "Note: the run did not finish (stopped early, killed or crashed: the records file has no closing line): the figures cover the %d requests it recorded, and the duration (%.2f s) is estimated from their end times\n", n, p.DurationS)
	case p.Interrupted:
		fmt.Fprintln(w, "Note: this run was interrupted (Ctrl-C): the figures cover only the requests it finished")
	}
}

// print writes vLLM's result JSON, or the table and our sections.
func (o *metricsOptions) print(w io.Writer, s *metrics.Summary, p *record.Params, recs []record.Record, fileFormat record.Format) error {
	steady := steadyStateOut{}
	if fileFormat == record.FormatJSONLines {
		var err error
		if steady, err = recordsSteadyState(p, recs, s, o.steadyStateOptions()); err != nil {
			return err
		}
	}
	if o.format == "json" {
		// steady_state is vLLM's Rust client's key, not Python's: it
		// goes with our extras, so --extras=false stays the object
		// vllm bench serve (Python) saves.
		opt := report.ResultOptions{Detailed: o.detailed, Extras: o.extras, WithSteadyState: steady.write && o.extras, SteadyState: steady.value}
		if err := report.WriteResult(w, s, p, recs, opt); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	var opt report.RunReportOptions
	if fileFormat == record.FormatJSONLines {
		opt.Title = report.StreamSpecifics
		if p.EndpointName != "" {
			opt.Title = report.SageMakerSpecifics
		}
	}
	withSteadySection(&opt, steady.value)
	return report.WriteRunReport(w, s, p, opt)
}

// withSteadySection prints the steady-state section under vLLM's table,
// where run prints it (nil ss: none).
func withSteadySection(opt *report.RunReportOptions, ss *metrics.SteadyState) {
	if ss != nil {
		opt.AfterTable = func(w io.Writer) error { return report.WriteSteadyState(w, ss) }
	}
}

// steadyStateOptions are the steady-state flags as
// metrics.SteadyStateOptions (the run's own figures left to
// recordsSteadyState).
func (o *metricsOptions) steadyStateOptions() metrics.SteadyStateOptions {
	opt := metrics.SteadyStateOptions{Disabled: o.noSteadyState, Threshold: o.steadyStateThreshold}
	if o.steadyStateMinWindow.set {
		mw := o.steadyStateMinWindow.v
		opt.MinWindow = &mw
	}
	return opt
}

// recordsSteadyState is the steady_state of llmbench records, as run
// writes it (runOptions.steadyState, docs/confidence.md#steady_state):
// absent for a multi-turn run's records (they number their turns), else
// the object for a closed loop at an infinite rate with max_concurrency
// whose window exists, null otherwise. opt carries the flags. A replayed
// trace cannot be told from its records: run writes null for one, this
// computes a window when its params name a concurrency at rate inf.
func recordsSteadyState(p *record.Params, recs []record.Record, s *metrics.Summary, opt metrics.SteadyStateOptions) (steadyStateOut, error) {
	for i := range recs {
		if recs[i].Turn > 0 {
			return steadyStateOut{}, nil
		}
	}
	opt.RateFinite = !p.RequestRate.IsInf()
	opt.Duration = p.DurationS
	opt.Percentiles = s.Percentiles
	if p.MaxConcurrency != nil {
		opt.MaxConcurrency = *p.MaxConcurrency
	}
	ss, err := metrics.SteadyStateOf(recs, s.OutputLens, opt)
	if err != nil {
		return steadyStateOut{}, &UsageError{Err: err}
	}
	return steadyStateOut{write: true, value: ss}, nil
}

// summarizeRecords runs metrics.Summarize on records read from a file,
// choosing the token counter from p.Tokenizer: the whitespace stand-in, no
// tokenizer, or (for a tokenizer id) the counts saved in the records.
// Parameter errors are bad input.
func summarizeRecords(p *record.Params, recs []record.Record) (*metrics.Summary, error) {
	var counter metrics.TokenCounter
	if p.Tokenizer == record.TokenizerWhitespace {
		counter = metrics.Whitespace{}
	}
	mp, err := metrics.ParamsFrom(p, counter)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return s, nil
}
