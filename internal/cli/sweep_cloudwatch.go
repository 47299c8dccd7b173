package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/cloudwatch"
)

// stepWindow is when one step's timed run went on (wall clock), for
// CloudWatch.
type stepWindow struct{ start, end time.Time }

// readUtilization sets each row's instance utilisation from CloudWatch
// under --cloudwatch: one read covering the whole sweep, polled up to
// --cloudwatch-wait until its last minute arrives, then cut into each
// step's window (docs/instance-choice.md). Problems are warnings: the
// sweep's own figures stand without utilisation.
func (d *sweepDriver) readUtilization(ctx context.Context) {
	if !d.o.sm.cloudwatch || len(d.windows) == 0 || ctx.Err() != nil {
		return
	}
	if d.base.Kind != bench.SageMaker {
		fmt.Fprintln(d.ui.errw, "Warning: --cloudwatch reads a SageMaker endpoint's metrics; ignored without --backend sagemaker")
		return
	}
	if d.o.sm.inferenceComponent != "" {
		fmt.Fprintln(d.ui.errw, "Warning: --cloudwatch: inference components publish utilisation under /aws/sagemaker/InferenceComponents, which llmbench does not read; no utilisation per step")
		return
	}
	start, end := d.windows[0].start, d.windows[0].end
	for _, w := range d.windows[1:] {
		start, end = minTime(start, w.start), maxTime(end, w.end)
	}
	fmt.Fprintf(d.ui.errw, "Reading instance utilisation from CloudWatch (waiting up to %s for the last minute) ...\n", d.o.sm.cloudwatchWait)
	series, err := d.o.sm.utilization(ctx, start, end, d.o.sm.cloudwatchWait)
	if err != nil {
		fmt.Fprintln(d.ui.errw, "Warning: CloudWatch:", err)
		return
	}
	for _, w := range series.Warnings {
		fmt.Fprintln(d.ui.errw, "Warning:", w)
	}
	for i, w := range d.windows {
		u := series.Over(w.start, w.end)
		d.rows[i].Utilization = utilizationOf(&u)
	}
}

// utilizationOf copies CloudWatch's figures into the sweep's row type.
func utilizationOf(u *cloudwatch.Utilization) *capacity.Utilization {
	return &capacity.Utilization{CPUPct: u.CPUPct, GPUPct: u.GPUPct, GPUMemoryPct: u.GPUMemoryPct, MemoryPct: u.MemoryPct,
		DiskPct: u.DiskPct, Normalized: u.Normalized, Minutes: u.Minutes, Note: u.Note}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
