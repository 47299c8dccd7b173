package report

import (
	"github.com/llmbench/llmbench/internal/pyjson"
	"testing"

	"github.com/llmbench/llmbench/internal/stats"
)

// TestSetRuns: llmbench.runs (figures in key order) and, under --runs
// auto, llmbench.convergence go inside the llmbench object when there is
// one, else at the top.
func TestSetRuns(t *testing.T) {
	t.Parallel()
	figs := []map[string]float64{{"b": 2, "a": 1}, {"a": 3}}
	withX := func() *Object { o := NewObject(); o.Set("x", 1); o.Set(ExtrasKey, NewObject()); return o }
	tests := []struct {
		name string
		obj  *Object
		conv *stats.Convergence
		want string
	}{
		{"fixed K", withX(), nil, `{"x": 1, "llmbench": {"runs": [{"a": 1.0, "b": 2.0}, {"a": 3.0}]}}`},
		{"auto", withX(), &stats.Convergence{Runs: 2}, `{"x": 1, "llmbench": {"convergence": {"mode": "", "ci_width": 0, "max_runs": 0, "runs": 2, "converged": false, "statistics": null}, "runs": [`},
		{"no llmbench object", NewObject(), nil, `{"runs": [{"a": 1.0, "b": 2.0}, {"a": 3.0}]}`},
	}
	for _, tt := range tests {
		SetRuns(tt.obj, figs, tt.conv)
		b, err := pyjson.Marshal(tt.obj)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); len(got) < len(tt.want) || got[:len(tt.want)] != tt.want {
			t.Errorf("%s: %s, want prefix %s", tt.name, got, tt.want)
		}
	}
}
