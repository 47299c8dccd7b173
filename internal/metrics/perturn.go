package metrics

import (
	"maps"
	"slices"

	"github.com/llmbench/llmbench/internal/record"
)

// TurnStats is TTFT over the successful requests of one turn index of a
// multi-turn run (docs/metrics.md#multi-turn): do later turns, whose
// history the server may have cached, start as fast as the first?
type TurnStats struct {
	// Turn is the turn index (1-based); N the requests counted.
	Turn, N int
	// TTFT holds mean, median, std and the run's percentiles, in ms.
	TTFT Stats
}

// perTurn groups successful records by Turn; nil when none has one.
func perTurn(recs []record.Record, percentiles []float64) []TurnStats {
	byTurn := map[int][]float64{}
	for i := range recs {
		if r := &recs[i]; r.Turn > 0 && r.Success {
			byTurn[r.Turn] = append(byTurn[r.Turn], r.TTFT)
		}
	}
	if len(byTurn) == 0 {
		return nil
	}
	var out []TurnStats
	for _, k := range slices.Sorted(maps.Keys(byTurn)) {
		v := byTurn[k]
		out = append(out, TurnStats{Turn: k, N: len(v), TTFT: describe(TTFT, v, percentiles)})
	}
	return out
}
