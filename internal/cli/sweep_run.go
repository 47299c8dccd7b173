package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/bench/step"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
	"github.com/llmbench/llmbench/internal/sweep"
)

// The wiring of a sweep: flags to sweep.Config, each step's runner
// (sweepSteps), and the files and exit status of the end.

// sweep runs the ladder, the refinement, and writes the analysis.
func (o *sweepOptions) sweep(ctx context.Context, env *Env, cmd *cobra.Command) error {
	if err := o.checkSweep(cmd); err != nil {
		return err
	}
	if _, err := o.checkAll(cmd); err != nil {
		return err
	}
	if err := fileLimit(o.sc.MostInFlight(o.f.maxConcurrency.V)); err != nil {
		return err
	}
	if err := o.resolveWorker(cmd, env); err != nil { // distributed sweeps
		return err
	}
	o.sc.StartAt, o.sc.Worker = o.w.at, o.w.info
	if err := o.sc.CheckSchedule(cmd.Flags().Changed("step-gap")); err != nil {
		return &UsageError{Err: err}
	}
	ui := &console{out: env.Stdout, errw: &lockedWriter{w: env.Stderr}, tty: env.Stderr}
	base, closeBE, err := o.plan(ctx, env, cmd, ui.errw)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	defer closeBE()
	if o.live, err = promsink.Run(ctx, o.m, base, ui.out); err != nil {
		return &UsageError{Err: err}
	}
	defer o.live.Finish(context.WithoutCancel(ctx), ui.errw)
	if err := o.configure(base); err != nil {
		return err
	}
	d := sweep.New(o.sc, base, &sweepSteps{o: o, ui: ui}, ui.errw)
	if err := d.MakeDir(); err != nil {
		return usageErrorf("cannot create the sweep's folder: %v", err)
	}
	res, err := d.Run(ctx)
	return o.finishSweep(ctx, ui, d, res, err)
}

// configure completes the sweep's configuration from run's flags and the
// plan of its steps.
func (o *sweepOptions) configure(base *bench.Plan) error {
	price, err := capacity.PricingOf(o.sm.inst)
	if err != nil {
		return &UsageError{Err: err}
	}
	c, sm := &o.sc, o.sm
	c.Seed, c.Price, c.ResultDir = uint64(o.f.ds.Seed), price, o.f.resultDir
	c.Label, c.Date = sweep.Label(o.f.label, base), time.Now().Format(bench.DateLayout)
	c.KeepRecords = o.w.info != nil || o.f.saveDetailed
	c.ExplainKnee, c.SharedPrefixes = o.f.srv.spec != "", o.f.ds.SharedPrefixes()
	if sm.cloudwatch {
		c.CloudWatch = sweep.NewCloudWatch(base, sm.inferenceComponent != "", sm.cloudwatchWait, sm.utilization)
	}
	return nil
}

// sweepSteps runs a sweep's steps with run's step runner
// (internal/bench/step): the progress bar, live metrics, the records file
// and the server's metrics.
type sweepSteps struct {
	o  *sweepOptions
	ui *console
}

func (s *sweepSteps) RunStep(ctx context.Context, p *bench.Plan, phase, records string) (*bench.Outcome, sweep.Step, error) {
	o := s.o
	o.live.StartPhase(phase, p)
	rec := &recfile.File{Path: records, Worker: o.w.headerInfo, Wrap: wrapFileWriter}
	st, err := o.stepRunner(s.ui).Run(ctx, p, rec) // a failed step's file ends here: the driver stops
	if err != nil {
		return nil, nil, err
	}
	if st.Outcome.Interrupted {
		rec.CloseInterrupted(p, st.Outcome) // kept on disk, beside the step's partial result
	}
	return st.Outcome, sweepStep{st}, nil
}

// sweepStep is a step that ran, as sweep.Step.
type sweepStep struct{ st *step.Step }

func (s sweepStep) Close(_ *bench.Plan, _ *bench.Outcome, sum *bench.Summary) (sweep.Steady, error) {
	write, ss, err := s.st.Close(sum)
	return sweep.Steady{Write: write, Value: ss}, err
}

func (s sweepStep) SetResult(obj *report.Object) { report.SetServerResult(obj, s.st.Server) }

func (s sweepStep) Server() *servermetrics.Summary { return s.st.Server.Summary() }

// finishSweep reports the sweep (sweep.Driver.Report: the analysis, the
// sweep file, its CSV and the HTML report) and chooses the exit status.
func (o *sweepOptions) finishSweep(ctx context.Context, ui *console, d *sweep.Driver, res *sweep.Result, err error) error {
	if errors.Is(err, sweep.ErrNothingMeasured) {
		if ctx.Err() != nil {
			return &ExitError{Code: 130, Msg: res.FirstStepWords()}
		}
		return fmt.Errorf("no step finished: %s", res.Stopped)
	}
	if err != nil {
		return err
	}
	if err := d.Report(ui.out, res, o.f.htmlPath); err != nil {
		return err
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
