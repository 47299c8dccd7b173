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
appends an "llmbench" object with our own figures (--extras=false drops it).`,
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
	return cmd
}

// run reads the file, applies the overrides, and prints.
func (o *metricsOptions) run(env *Env, cmd *cobra.Command, path string) error {
	switch o.format {
	case "table", "json", "filename":
	default:
		return usageErrorf("--format %q: want table, json or filename", o.format)
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
	if o.format == "json" {
		opt := report.ResultOptions{Detailed: o.detailed, Extras: o.extras}
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
	return report.WriteRunReport(w, s, p, opt)
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
