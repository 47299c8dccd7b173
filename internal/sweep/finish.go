package sweep

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/cloudwatch"
)

// The end of a sweep: the analysis of what was measured, and what the
// command needs to report it and choose the exit status.

// Result is how a sweep ended.
type Result struct {
	// Sweep is the analysis, amended (nil when no step finished).
	Sweep *capacity.Sweep
	// Stopped says why the sweep ended early ("" = it did not).
	Stopped string
	// Dead says how the server stopped answering ("" = it did not).
	Dead string
	// Shortfall is --require-load's failure ("" = met, or not asked).
	Shortfall string
	// Interrupted names the step Ctrl-C stopped, what it measured and
	// where its partial result went ("" = no step was interrupted).
	Interrupted string
}

// FirstStepWords is the exit message of a sweep interrupted before its
// first step finished: the interrupted step's partial result, or, when
// the step never ran, that nothing was measured.
func (r *Result) FirstStepWords() string {
	if r.Interrupted == "" {
		return "interrupted before the first step finished; nothing was measured"
	}
	return "interrupted before the first step finished, so there is no analysis: " + r.Interrupted
}

// ErrNothingMeasured is finish's error when no step finished.
var ErrNothingMeasured = errors.New("no step finished")

// finish analyses what was measured: the rows with their utilisation,
// the price, the notes and the verdict's amendments.
func (d *Driver) finish(ctx context.Context) (*Result, error) {
	res := &Result{Stopped: d.stopped, Dead: d.dead, Interrupted: d.interrupted}
	if len(d.rows) == 0 {
		return res, ErrNothingMeasured
	}
	c := &d.cfg
	d.readUtilization(ctx)
	an, err := capacity.Analyze(c.Kind, c.SLA, d.rows)
	if err != nil {
		return nil, err
	}
	an.Label = c.Label
	an.Price(c.Price)
	an.Notes = append(an.Notes, d.late...)
	if d.interrupted != "" {
		an.Notes = append(an.Notes, d.stopped)
	}
	d.amendVerdict(an)
	if c.ExplainKnee {
		an.ExplainKnee(c.SharedPrefixes)
	}
	if an.Worker = c.Worker; an.Worker != nil {
		// Loads name the whole step (so the workers' steps match), while
		// the figures are this worker's share: only the merge is the
		// sweep (its Little's-law check, too).
		an.Notes = append(an.Notes, fmt.Sprintf("worker %d of %d: each row measures this worker's share of the step's load; run llmbench merge on all the workers' sweeps for the analysis", an.Worker.Index, an.Worker.Count))
	}
	res.Sweep, res.Shortfall = an, d.shortfall(an)
	return res, nil
}

// amendVerdict adds to the verdict what the analysis of the rows cannot
// know: the failure share a step may have (when --max-error-rate set
// the SLA's error_rate term) and a server that stopped answering.
func (d *Driver) amendVerdict(an *capacity.Sweep) {
	if c := &d.cfg; c.Gate {
		an.Verdict += fmt.Sprintf(" A step meets the SLA only with at most %s of its requests failed (--max-error-rate %s).",
			PctWords(c.MaxErrorRate), strconv.FormatFloat(c.MaxErrorRate, 'f', -1, 64))
	}
	if d.dead != "" {
		an.Verdict = "the server stopped answering (" + d.dead + "), so the sweep ended there; over the steps before: " + an.Verdict
	}
}

// shortfall is --require-load's gate: "" when the largest load under
// the SLA reaches it.
func (d *Driver) shortfall(an *capacity.Sweep) string {
	need := d.cfg.RequireLoad
	if need <= 0 {
		return ""
	}
	ml := an.MaxLoadUnderSLA.Load
	if ml != nil && *ml >= need {
		return ""
	}
	got := "no load tested"
	if ml != nil {
		got = strconv.FormatFloat(*ml, 'f', -1, 64)
	}
	return fmt.Sprintf("--require-load %s: the largest %s under the SLA is %s", strconv.FormatFloat(need, 'f', -1, 64), d.cfg.Kind, got)
}

// readUtilization sets each row's instance utilisation from CloudWatch
// under --cloudwatch: one read covering the whole sweep, polled up to
// --cloudwatch-wait until its last minute arrives, then cut into each
// step's window (docs/instance-choice.md). Problems are warnings: the
// sweep's own figures stand without utilisation.
func (d *Driver) readUtilization(ctx context.Context) {
	cw := d.cfg.CloudWatch
	if cw == nil || len(d.windows) == 0 || ctx.Err() != nil {
		return
	}
	if cw.Skip != "" {
		fmt.Fprintln(d.errw, cw.Skip)
		return
	}
	start, end := d.windows[0].start, d.windows[0].end
	for _, w := range d.windows[1:] {
		start, end = minTime(start, w.start), maxTime(end, w.end)
	}
	fmt.Fprintf(d.errw, "Reading instance utilisation from CloudWatch (waiting up to %s for the last minute) ...\n", cw.Wait)
	series, err := cw.Read(ctx, start, end, cw.Wait)
	if err != nil {
		fmt.Fprintln(d.errw, "Warning: CloudWatch:", err)
		return
	}
	for _, w := range series.Warnings {
		fmt.Fprintln(d.errw, "Warning:", w)
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
