package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/stats"
)

// Range is the spread of one figure over repeated runs of one load.
type Range struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Std is the population standard deviation.
	Std float64 `json:"std"`
}

// Aggregate combines K rows of one load (--runs K) into one: every
// figure in Metrics becomes its mean over the runs that reported it,
// with min, max and std in Spread; completed and failed are summed;
// health figures (mean in flight, dispatch lag, client CPU) and the
// utilisation are averaged; the row is harness-limited when any run
// was; result files are joined with spaces. One row is returned as is; rows of different
// loads or kinds are an error.
func Aggregate(rows []Row) (Row, error) {
	if len(rows) == 0 {
		return Row{}, fmt.Errorf("capacity: no rows to aggregate")
	}
	if len(rows) == 1 {
		return rows[0], nil
	}
	out := Row{Load: rows[0].Load, LoadKind: rows[0].LoadKind, MeanThinkS: rows[0].MeanThinkS, Share: rows[0].Share,
		Metrics: map[string]float64{}, Spread: map[string]Range{}}
	var files []string
	keys := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Load != out.Load || r.LoadKind != out.LoadKind {
			return Row{}, fmt.Errorf("capacity: cannot aggregate %s %v with %s %v", r.LoadKind, r.Load, out.LoadKind, out.Load)
		}
		out.Runs += max(r.Runs, 1)
		out.Completed += r.Completed
		out.Failed += r.Failed
		out.Canceled += r.Canceled
		if r.ResultFile != "" {
			files = append(files, r.ResultFile)
		}
		for k := range r.Metrics {
			keys[k] = true
		}
	}
	for k := range keys {
		var vals []float64
		for i := range rows {
			if v, ok := rows[i].Metrics[k]; ok {
				vals = append(vals, v)
			}
		}
		mean, rg := spread(vals)
		out.Metrics[k], out.Spread[k] = mean, rg
	}
	figs := make([]map[string]float64, len(rows))
	for i := range rows {
		figs[i] = rows[i].Metrics
	}
	out.RunStats = stats.RunsByKey(figs, stats.DefaultConfidence)
	out.ResultFile = strings.Join(files, " ")
	out.MeanInFlight = meanOf(rows, func(r *Row) *float64 { return r.MeanInFlight })
	out.DispatchLagP99Ms = meanOf(rows, func(r *Row) *float64 { return r.DispatchLagP99Ms })
	out.ClientCPU = meanOf(rows, func(r *Row) *float64 { return r.ClientCPU })
	out.Utilization = meanUtilization(rows)
	out.Server = lastServer(rows)
	aggregateThroughput(&out, rows)
	out.derive()
	// One limited run limits the step, whatever the averages say; its
	// reason is the one shown.
	for i := range rows {
		if rows[i].HarnessLimited {
			out.HarnessLimited = true
			out.HarnessReason = fmt.Sprintf("run %d: %s", i+1, rows[i].HarnessReason)
			break
		}
	}
	return out, nil
}

// spread is the mean and Range of vals (not empty).
func spread(vals []float64) (float64, Range) {
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	mean := sum / float64(len(vals))
	ss := 0.0
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	return mean, Range{Min: slices.Min(vals), Max: slices.Max(vals), Std: math.Sqrt(ss / float64(len(vals)))}
}

// meanOf is the mean of the non-nil values get returns; nil when none.
func meanOf(rows []Row, get func(*Row) *float64) *float64 {
	var vals []float64
	for i := range rows {
		if v := get(&rows[i]); v != nil {
			vals = append(vals, *v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	m, _ := spread(vals)
	return &m
}

// groupByLoad sorts rows by load and aggregates rows of equal load.
func groupByLoad(rows []Row) ([]Row, error) {
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b Row) int { return cmpFloat(a.Load, b.Load) })
	var out []Row
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j].Load == sorted[i].Load {
			j++
		}
		r, err := Aggregate(sorted[i:j])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		i = j
	}
	return out, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
