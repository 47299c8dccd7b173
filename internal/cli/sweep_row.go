package cli

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
	rec  *recordsOut
	// warn is the step's clock-schedule warning ("" = none).
	warn string
	// server is the step's view of the server (nil = not read).
	server *serverRun
}

// rowOf summarizes a step, closes its records, saves its full result
// and returns its row.
func (d *sweepDriver) rowOf(p *bench.Plan, outcome *bench.Outcome, si stepInfo) (capacity.Row, error) {
	sum, err := bench.Summarize(p, outcome)
	if err != nil {
		return capacity.Row{}, err
	}
	si.server.CrossCheck(outcome.Records, outcome.Start, sum.Metrics.TotalOutput)
	serverToRecords(si.server, si.rec)
	si.rec.close(&sum.Params)
	// A closed-loop step's steady_state, as run computes it: its
	// throughputs are the row's (SteadyThroughput below).
	steady, err := d.o.steadyState(p, outcome, sum)
	if err != nil {
		return capacity.Row{}, err
	}
	obj, err := report.Result(sum.Metrics, &sum.Params, outcome.Records, report.ResultOptions{Extras: true,
		WithSteadyState: steady.write, SteadyState: steady.value})
	if err != nil {
		return capacity.Row{}, err
	}
	setServerResult(si.server, obj)
	if w := d.o.w.info; w != nil {
		obj.Set("llmbench_worker", map[string]any{"run_id": w.RunID, "config_hash": w.ConfigHash,
			"index": w.Index, "count": w.Count, "step_start_at": p.StartAt.UTC().Format(time.RFC3339Nano),
			"late_s": outcome.Late.Seconds(), "warning": si.warn})
	}
	name := stepName(d.kind, si.load, si.run, d.o.f.repeat.planned())
	path, err := report.SaveResult(d.dir, name, false, obj)
	if err != nil {
		return capacity.Row{}, fmt.Errorf("saving the step result: %w", err)
	}
	st := capacity.Step{Load: si.load, Kind: d.kind, ResultFile: path, ClientCPU: cpuShare(outcome),
		Shares: stepShares(d.sla, outcome.Records)}
	if d.kind == capacity.Users {
		st.MeanThinkS = d.think.Mean().Seconds()
	}
	if w := d.o.w.info; w != nil && d.kind != capacity.RequestRate {
		// Users i mod N (bench.Plan.Share): ceil((load - i) / N) of them.
		st.Share = float64((int(si.load)-w.Index+w.Count-1)/w.Count) / si.load
	}
	row := capacity.RowFrom(sum.Metrics, st)
	if d.kind != capacity.RequestRate {
		row.SteadyThroughput(steady.value)
	}
	row.Server = si.server.Summary()
	if si.run == 1 {
		d.pending = d.pending[:0]
	}
	d.pending = append(d.pending, savedRun{name, obj, row.Metrics})
	return row, nil
}

// savedRun is one run's saved result and its numeric figures.
type savedRun struct {
	name string
	obj  *report.Object
	m    map[string]float64
}

// saveRuns saves each run of a load under --runs again, once the last
// has run, with llmbench.runs (runsArray: the runs' numeric figures,
// which compare reads to test a change over runs, docs/confidence.md,
// "compare") and under --runs auto llmbench.convergence. One run is left
// as saved.
func (d *sweepDriver) saveRuns(conv *stats.Convergence) error {
	defer func() { d.pending = d.pending[:0] }()
	if len(d.pending) < 2 {
		return nil
	}
	figs := make([]map[string]float64, len(d.pending))
	for i, r := range d.pending {
		figs[i] = r.m
	}
	for _, r := range d.pending {
		setRunsExtras(r.obj, figs, conv)
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
		metric := strings.TrimSuffix(t.Key[strings.IndexByte(t.Key, '_')+1:], "_ms")
		var vals []float64
		counted := true
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
					counted = false
					break
				}
				if v, ok := metrics.RequestTPOT(r.Latency, r.TTFT, *r.OutputTokens); ok {
					vals = append(vals, 1000*v)
				}
			}
		}
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
