package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// prepareOutputDirs creates the folders the result and records files go
// to before anything is sent, so a bad --result-dir fails at once rather
// than after a long run whose result then cannot be written.
func (o *runOptions) prepareOutputDirs() error {
	f := &o.f
	result := ""
	if f.saveResult || f.appendResult {
		result = filepath.Join(f.resultDir, o.resultFilename()+"x") // the name may hold a folder
	}
	if err := report.MakeDirs(result, f.saveRecordsPath); err != nil {
		return usageErrorf("cannot create the folder for saved results: %v", err)
	}
	return nil
}

// afterRun adds the SageMaker sections (CloudWatch, cost) and returns the
// result's extra keys.
func (o *runOptions) afterRun(ctx context.Context, ui *console, plan *bench.Plan, outcome *bench.Outcome, s *bench.Summary) (map[string]any, error) {
	sum, out := s.Metrics, ui.out
	extra := map[string]any{selfCheckKey: selfCheckObject(outcome)}
	if plan.Kind == bench.SageMaker {
		extra["sagemaker"] = o.sm.endpoint().ResultInfo(o.sm.inst.Type)
		wallEnd := outcome.Start.Add(outcome.Duration)
		cw, cwErr := o.sm.cloudWatch(ctx, outcome.Start, wallEnd, len(outcome.Records)+o.resolved.NumWarmups)
		if cwErr != nil {
			fmt.Fprintln(ui.errw, "Warning: CloudWatch:", cwErr)
		}
		if cw != nil {
			if err := cloudwatch.WriteTable(out, cw, sum.MeanOf(metrics.E2EL), sum.MeanOf(metrics.TTFT)); err != nil {
				return nil, err
			}
			extra["cloudwatch"] = cw
		}
	}
	est, err := o.sm.inst.Estimate(outcome.Duration, sum.Completed, sum.TotalOutput)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if est != nil {
		extra["cost"] = est
	}
	if plan.Kind == bench.SageMaker || est != nil {
		if err := o.sm.writeAfterRun(out, est); err != nil {
			return nil, err
		}
	}
	return extra, nil
}

// save writes the result JSON when asked (report.SaveRun); the records
// went to disk while the run went on (recordsOut).
func (o *runOptions) save(out io.Writer, sum *metrics.Summary, p *record.Params, recs []record.Record, extra map[string]any, rec *recordsOut, steady steadyStateOut) error {
	f := &o.f
	saved, err := report.SaveRun(out, sum, p, recs, report.RunFiles{Dir: f.resultDir, Name: o.resultName(p),
		Save: f.saveResult, Append: f.appendResult, Extra: extra,
		Options: report.ResultOptions{Detailed: f.saveDetailed, Extras: true, WithSteadyState: steady.write, SteadyState: steady.value},
		Records: report.RecordsFile{Path: rec.Path, Named: f.saveRecordsPath != "", Temp: rec.Temp, Whole: rec.Err() == nil}})
	if saved {
		rec.RemoveTemp()
	}
	return err
}

// writeHTML writes --html: the run page of the report, from the records
// in memory (so it needs no saved file).
func (o *runOptions) writeHTML(out io.Writer, s *bench.Summary, outcome *bench.Outcome, extra map[string]any) error {
	path := o.f.htmlPath
	if path == "" {
		return nil
	}
	name := o.resultName(&s.Params)
	err := writeFileWith(path, func(w io.Writer) error {
		return htmlreport.WriteRun(w, name, s.Metrics, &s.Params, outcome.Records, extra, htmlreport.Options{Title: "llmbench run: " + name})
	})
	if err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	fmt.Fprintf(out, "HTML report written to %s\n", path)
	return nil
}

// resultName is --result-filename, or vLLM's name for the run; a --users
// run is named after its users (report.UsersFilename).
func (o *runOptions) resultName(p *record.Params) string {
	if name := o.resultFilename(); name != "" {
		return name
	}
	if u := o.resolved.Load.Users; u != nil {
		return report.UsersFilename(p, u.Users)
	}
	return report.ResultFilename(p)
}

// closedLoopObject is the result's llmbench.closed_loop object of a
// --users run (report.ClosedLoop.Object).
func (o *runOptions) closedLoopObject(sent int) *report.Object { return o.closedLoopRun().Object(sent) }
