package cli

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
)

// The ladder of a sweep: its loads in order, --runs per load, and
// --refine's lengthening and bisection (docs/capacity.md).

// ladder is the load kind and levels the flags ask for.
func (o *sweepOptions) ladder() (capacity.Kind, []float64, error) {
	var kind capacity.Kind
	var list string
	for _, c := range []struct {
		k capacity.Kind
		v string
	}{{capacity.Concurrency, o.s.concurrency}, {capacity.RequestRate, o.s.rates}, {capacity.Users, o.s.users}} {
		if c.v == "" {
			continue
		}
		if list != "" {
			return "", nil, usageErrorf("give one of --concurrency, --request-rates or --users, not several")
		}
		kind, list = c.k, c.v
	}
	if list == "" {
		return "", nil, usageErrorf("sweep needs a ladder: --concurrency 1,2,4,8, --request-rates 1,2,4 or --users 10,50,100")
	}
	var loads []float64
	for _, item := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		if err != nil || v <= 0 || math.IsInf(v, 0) || (kind.Integer() && v != math.Trunc(v)) {
			return "", nil, usageErrorf("--%s: %q is not a positive %s", flagOf(kind), item, map[bool]string{true: "whole number", false: "number"}[kind.Integer()])
		}
		loads = append(loads, v)
	}
	return kind, loads, nil
}

// refine spends --refine steps first on lengthening the unresolved
// steps (an interval that straddles a limit narrows with more requests),
// then on bisecting between the last passing and the first failing load.
func (d *sweepDriver) refine(ctx context.Context) {
	for i := 0; i < d.o.s.refine && d.stopped == "" && d.an != nil; i++ {
		if l, ok := d.unresolved(); ok {
			d.lengthen(ctx, l)
			continue
		}
		pass, fail, ok := d.an.RefineBounds()
		if !ok {
			return
		}
		probe, ok := capacity.NextProbe(pass, fail, d.kind)
		if !ok {
			return
		}
		if d.tested(probe) {
			// It was measured and did not move the bounds: the step was
			// client-limited, so no verdict can come from measuring it again.
			d.stopped = fmt.Sprintf("refinement stopped at %s %s, whose step gave no server verdict (client-limited)", d.kind, strconv.FormatFloat(probe, 'f', -1, 64))
			return
		}
		d.total += d.o.f.repeat.planned()
		if !d.runLoad(ctx, probe) {
			return
		}
	}
}

// runLoad runs the runs of load l: --runs K of them, or under --runs
// auto until the deciding figures converge (at most --max-runs); false
// when the sweep must stop.
func (d *sweepDriver) runLoad(ctx context.Context, l float64) bool {
	for run := 1; ; run++ {
		ok, more := d.step(ctx, l, run)
		if !ok {
			return false
		}
		if !more {
			d.total -= d.o.f.repeat.planned() - run // auto stopped early
			return true
		}
	}
}

// unresolved is the lowest counted load whose SLA verdict is
// unresolved and that refinement has not lengthened yet.
func (d *sweepDriver) unresolved() (float64, bool) {
	for i := range d.an.Steps {
		r := &d.an.Steps[i]
		if r.SLAVerdict == capacity.VerdictUnresolved && !r.HarnessLimited && d.longer[r.Load] == 0 {
			return r.Load, true
		}
	}
	return 0, false
}

// lengthen runs the step at load l again with twice the requests (or
// the duration) and puts its runs in place of the earlier ones, whose
// result files the new ones overwrite.
func (d *sweepDriver) lengthen(ctx context.Context, l float64) {
	if d.longer == nil {
		d.longer = map[float64]int{}
	}
	d.longer[l]++
	fmt.Fprintf(d.ui.errw, "refining: %s %s is unresolved; running it again twice as long\n", d.kind, strconv.FormatFloat(l, 'f', -1, 64))
	rows, windows := d.rows[:0:0], d.windows[:0:0]
	for i := range d.rows {
		if d.rows[i].Load != l {
			rows, windows = append(rows, d.rows[i]), append(windows, d.windows[i])
		}
	}
	d.rows, d.windows = rows, windows
	d.total += d.o.f.repeat.planned()
	d.runLoad(ctx, l)
}

// tested reports whether a step at load l has run.
func (d *sweepDriver) tested(l float64) bool {
	for _, r := range d.rows {
		if r.Load == l {
			return true
		}
	}
	return false
}
