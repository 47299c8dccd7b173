package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
	"github.com/llmbench/llmbench/internal/sweep"
)

// The wiring of a sweep: flags to sweep.Config, each step's sinks
// (sweepSteps), and the files and exit status of the end.

// sweep runs the ladder, the refinement, and writes the analysis.
func (o *sweepOptions) sweep(ctx context.Context, env *Env, cmd *cobra.Command) error {
	kind, loads, sla, think, err := o.checkSweep(cmd)
	if err != nil {
		return err
	}
	if err := o.checkAll(cmd); err != nil {
		return err
	}
	if err := o.resolveWorker(cmd, env); err != nil { // distributed sweeps: sweep_worker.go
		return err
	}
	if err := o.checkSweepWorker(cmd, kind, loads); err != nil {
		return err
	}
	if o.w.info != nil && o.f.repeat.runs.auto {
		// Each worker sees only its share: when to stop is the merged
		// step's question.
		return usageErrorf("--runs auto needs the merged data: in worker mode give a fixed --runs K")
	}
	ui := &console{out: env.Stdout, errw: &lockedWriter{w: env.Stderr}, tty: env.Stderr}
	base, closeBE, err := o.plan(ctx, env, cmd, ui.errw)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	defer closeBE()
	if o.live, err = startLive(ctx, o.m, base, ui.out); err != nil {
		return err
	}
	defer o.live.Finish(context.WithoutCancel(ctx), ui.errw)
	cfg, err := o.sweepConfig(kind, loads, sla, think, base)
	if err != nil {
		return err
	}
	d := sweep.New(cfg, base, &sweepSteps{o: o, ui: ui}, ui.errw)
	if err := d.MakeDir(); err != nil {
		return usageErrorf("cannot create the sweep's folder: %v", err)
	}
	res, err := d.Run(ctx)
	return o.finishSweep(ctx, ui, d, res, err)
}

// sweepConfig is the driver's configuration from the checked flags.
func (o *sweepOptions) sweepConfig(kind capacity.Kind, loads []float64, sla capacity.SLA, think load.Think, base *bench.Plan) (sweep.Config, error) {
	price, err := o.sm.pricing()
	if err != nil {
		return sweep.Config{}, &UsageError{Err: err}
	}
	s, rp := &o.s, &o.f.repeat
	return sweep.Config{Kind: kind, Loads: loads, SLA: sla, Gate: o.gate, MaxErrorRate: o.maxErrorRate(),
		Think: think, SpawnRate: s.spawnRate, Seed: uint64(o.f.ds.Seed),
		StepDuration: s.stepDuration, PromptsPerStep: s.promptsPerStep, StepWarmup: s.stepWarmup,
		StopWhenSaturated: s.stopWhenSaturated, Refine: s.refine, RequireLoad: s.requireLoad,
		StartAt: o.w.at, StepGap: s.stepGap, Worker: o.w.info,
		Repeat:    sweep.Repeat{Runs: rp.runs.k, Auto: rp.runs.auto, CIWidth: rp.ciWidth, MaxRuns: rp.maxRuns},
		ResultDir: o.f.resultDir, Label: sweepLabel(o.f.label, base), Date: time.Now().Format(bench.DateLayout),
		KeepRecords: o.w.info != nil || o.f.saveDetailed, Price: price,
		ExplainKnee: o.f.srv.spec != "", SharedPrefixes: o.sharedPrefixes(), CloudWatch: o.cloudWatch(base),
	}, nil
}

// sweepLabel names the sweep: --label, else the endpoint, else the model.
func sweepLabel(label string, base *bench.Plan) string {
	if label != "" {
		return label
	}
	if base.Params.EndpointName != "" {
		return base.Params.EndpointName
	}
	return base.Params.ModelID
}

// cloudWatch is --cloudwatch's reader of instance utilisation (nil
// without the flag); it only warns where it cannot read.
func (o *sweepOptions) cloudWatch(base *bench.Plan) *sweep.CloudWatch {
	sm := o.sm
	if !sm.cloudwatch {
		return nil
	}
	cw := &sweep.CloudWatch{Wait: sm.cloudwatchWait, Read: sm.utilization}
	switch {
	case base.Kind != bench.SageMaker:
		cw.Skip = "Warning: --cloudwatch reads a SageMaker endpoint's metrics; ignored without --backend sagemaker"
	case sm.inferenceComponent != "":
		cw.Skip = "Warning: --cloudwatch: inference components publish utilisation under /aws/sagemaker/InferenceComponents, which llmbench does not read; no utilisation per step"
	}
	return cw
}

// sweepSteps runs a sweep's steps with run's sinks: the progress bar,
// live metrics, the records file and the server's metrics.
type sweepSteps struct {
	o  *sweepOptions
	ui *console
}

func (s *sweepSteps) RunStep(ctx context.Context, p *bench.Plan, phase, records string) (*bench.Outcome, sweep.Step, error) {
	o, ui := s.o, s.ui
	o.live.StartPhase(phase, p)
	rec := &recordsOut{}
	rec.Worker, rec.Path = o.w.headerInfo, records
	total := len(p.Requests)
	if p.Load.Duration > 0 {
		total = 0 // bounded by time
	}
	bar := newProgress(ui.tty, ui.errw, total, o.f.disableTqdm)
	sr := o.startServer(ctx, ui.errw)
	outcome, err := bench.Execute(ctx, p, bench.Hooks{Sink: bench.Sinks{rec.sink(ui.errw), o.live.Sink(), bar},
		InFlight: o.live.Counter(), BeforeStart: sr.BeforeStart(ctx)})
	sr.Stop()
	switch {
	case err != nil:
		rec.close(nil) // the driver stops: the file ends here
	case outcome.Interrupted:
		rec.closeInterrupted(p, outcome) // left out of the sweep, kept on disk
	}
	return outcome, &sweepStep{o: o, rec: rec, sr: sr}, err
}

// sweepStep is a step that ran: its records file and server view.
type sweepStep struct {
	o   *sweepOptions
	rec *recordsOut
	sr  *serverRun
}

func (s *sweepStep) Close(p *bench.Plan, outcome *bench.Outcome, sum *bench.Summary) (sweep.Steady, error) {
	s.sr.CrossCheck(outcome.Records, outcome.Start, sum.Metrics.TotalOutput)
	serverToRecords(s.sr, s.rec)
	s.rec.close(&sum.Params)
	st, err := s.o.steadyState(p, outcome, sum)
	return sweep.Steady{Write: st.write, Value: st.value}, err
}

func (s *sweepStep) SetResult(obj *report.Object) { setServerResult(s.sr, obj) }

func (s *sweepStep) Server() *servermetrics.Summary { return s.sr.Summary() }

// finishSweep prints the analysis, writes the sweep file, its CSV and
// the HTML report, and chooses the exit status.
func (o *sweepOptions) finishSweep(ctx context.Context, ui *console, d *sweep.Driver, res *sweep.Result, err error) error {
	if errors.Is(err, sweep.ErrNothingMeasured) {
		if ctx.Err() != nil {
			return &ExitError{Code: 130, Msg: "interrupted before the first step finished; nothing was measured"}
		}
		return fmt.Errorf("no step finished: %s", res.Stopped)
	}
	if err != nil {
		return err
	}
	an := res.Sweep
	fmt.Fprintln(ui.out)
	if err := capacity.WriteText(ui.out, an); err != nil {
		return err
	}
	path := d.Path()
	if err := writeFileWith(path, func(w io.Writer) error { return capacity.WriteJSON(w, an) }); err != nil {
		return fmt.Errorf("saving the sweep: %w", err)
	}
	csvPath := strings.TrimSuffix(path, ".json") + ".csv"
	if err := writeFileWith(csvPath, func(w io.Writer) error { return capacity.WriteCSV(w, an) }); err != nil {
		return fmt.Errorf("saving the sweep: %w", err)
	}
	fmt.Fprintf(ui.out, "Sweep saved to %s (rows: %s; step results in %s/)\n", path, csvPath, d.Dir())
	if h := o.f.htmlPath; h != "" {
		err := writeFileWith(h, func(w io.Writer) error {
			return htmlreport.WriteFiles(w, []string{path}, htmlreport.Options{Title: "llmbench sweep: " + an.Label})
		})
		if err != nil {
			return fmt.Errorf("writing the HTML report: %w", err)
		}
		fmt.Fprintf(ui.out, "HTML report written to %s\n", h)
	}
	if res.Stopped != "" && res.Dead == "" {
		fmt.Fprintf(ui.out, "Note: the sweep stopped early: %s.\n", res.Stopped)
	}
	switch {
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Msg: "interrupted: the analysis above covers the finished steps"}
	case res.Dead != "":
		return &ExitError{Code: 1, Msg: "the server stopped answering: " + res.Dead}
	case res.Shortfall != "":
		return &ExitError{Code: 1, Msg: res.Shortfall}
	}
	return nil
}

// writeFileWith writes a file through a temporary name in the same folder
// and renames it into place, so no reader sees half a file (writeUserFile).
func writeFileWith(path string, write func(io.Writer) error) error {
	return writeUserFile(path, write)
}
