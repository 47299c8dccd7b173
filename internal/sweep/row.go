package sweep

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/stats"
)

// A step's row: its summary, saved result, steady-state throughput and
// SLA shares; under --runs, its runs' results saved again together.

// stepInfo is what rowOf needs besides the plan and the outcome.
type stepInfo struct {
	load float64
	run  int
	name string // the result's file name (Name)
	step Step
	// warn is the step's clock-schedule warning ("" = none).
	warn string
}

// rowOf summarizes a step, closes it, saves its full result and returns
// its row.
func (d *Driver) rowOf(p *bench.Plan, outcome *bench.Outcome, si stepInfo) (capacity.Row, error) {
	sum, err := bench.Summarize(p, outcome)
	if err != nil {
		return capacity.Row{}, err
	}
	// A closed-loop step's steady_state, as run computes it: its
	// throughputs are the row's (SteadyThroughput below).
	steady, err := si.step.Close(p, outcome, sum)
	if err != nil {
		return capacity.Row{}, err
	}
	obj, err := report.Result(sum.Metrics, &sum.Params, outcome.Records, report.ResultOptions{Extras: true,
		WithSteadyState: steady.Write, SteadyState: steady.Value})
	if err != nil {
		return capacity.Row{}, err
	}
	si.step.SetResult(obj)
	c := &d.cfg
	if w := c.Worker; w != nil {
		obj.Set("llmbench_worker", map[string]any{"run_id": w.RunID, "config_hash": w.ConfigHash,
			"index": w.Index, "count": w.Count, "step_start_at": p.StartAt.UTC().Format(time.RFC3339Nano),
			"late_s": outcome.Late.Seconds(), "warning": si.warn})
	}
	path, err := report.SaveResult(d.dir, si.name, false, obj)
	if err != nil {
		return capacity.Row{}, fmt.Errorf("saving the step result: %w", err)
	}
	st := capacity.Step{Load: si.load, Kind: c.Kind, ResultFile: path, ClientCPU: cpuShare(outcome),
		Shares: stepShares(c.SLA, outcome.Records)}
	if c.Kind == capacity.Users {
		st.MeanThinkS = c.Think.Mean().Seconds()
	}
	if w := c.Worker; w != nil && c.Kind != capacity.RequestRate {
		// Users i mod N (bench.Plan.Share): ceil((load - i) / N) of them.
		st.Share = float64((int(si.load)-w.Index+w.Count-1)/w.Count) / si.load
	}
	row := capacity.RowFrom(sum.Metrics, st)
	if c.Kind != capacity.RequestRate {
		row.SteadyThroughput(steady.Value)
	}
	row.Server = si.step.Server()
	if si.run == 1 {
		d.pending = d.pending[:0]
	}
	d.pending = append(d.pending, savedRun{si.name, obj, row.Metrics})
	return row, nil
}

// savedRun is one run's saved result and its numeric figures.
type savedRun struct {
	name string
	obj  *report.Object
	m    map[string]float64
}

// saveRuns saves each run of a load under --runs again, once the last
// has run, with llmbench.runs (report.RunsArray: the runs' numeric
// figures, which compare reads to test a change over runs,
// docs/confidence.md, "compare") and under --runs auto
// llmbench.convergence. One run is left as saved.
func (d *Driver) saveRuns(conv *stats.Convergence) error {
	defer func() { d.pending = d.pending[:0] }()
	if len(d.pending) < 2 {
		return nil
	}
	figs := make([]map[string]float64, len(d.pending))
	for i, r := range d.pending {
		figs[i] = r.m
	}
	for _, r := range d.pending {
		report.SetRuns(r.obj, figs, conv)
		if _, err := report.SaveResult(d.dir, r.name, false, r.obj); err != nil {
			return fmt.Errorf("saving the step result: %w", err)
		}
	}
	return nil
}

// stepShares counts, for each SLA term judged on the share of requests
// (capacity.ShareTerm), the successful requests within its limit, from
// the step's records (values in ms, TPOT by metrics.RequestTPOT). A TPOT
// term is left out when some request has no output token count, whose
// length only the summary's tokenizer knows; it is then judged on the
// value.
func stepShares(sla capacity.SLA, recs []record.Record) map[string]capacity.Share {
	var out map[string]capacity.Share
	for _, t := range sla {
		if _, ok := capacity.ShareTerm(t); !ok {
			continue
		}
		vals, counted := shareValues(strings.TrimSuffix(t.Key[strings.IndexByte(t.Key, '_')+1:], "_ms"), recs)
		if !counted || len(vals) == 0 {
			continue
		}
		if out == nil {
			out = map[string]capacity.Share{}
		}
		out[t.Key] = capacity.ShareOf(t, vals)
	}
	return out
}

// shareValues are the successful requests' values of metric in ms;
// counted is false when a TPOT lacks its request's output token count.
func shareValues(metric string, recs []record.Record) (vals []float64, counted bool) {
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		switch metric {
		case metrics.TTFT:
			vals = append(vals, 1000*r.TTFT)
		case metrics.E2EL:
			vals = append(vals, 1000*r.Latency)
		case metrics.TPOT:
			if r.OutputTokens == nil {
				return vals, false
			}
			if v, ok := metrics.RequestTPOT(r.Latency, r.TTFT, *r.OutputTokens); ok {
				vals = append(vals, 1000*v)
			}
		}
	}
	return vals, true
}

// cpuShare is the client's CPU use over the step's timed run as a share
// of the cores it may use (its self-check); nil where it was not measured.
func cpuShare(o *bench.Outcome) *float64 {
	v := o.SelfCheck.CPUShare()
	if v <= 0 {
		return nil
	}
	return &v
}
