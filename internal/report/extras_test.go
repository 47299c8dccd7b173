package report

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/pyjson"
	"github.com/llmbench/llmbench/internal/record"
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

// TestSetExtras: "parent/child" keys go inside an existing parent object,
// else to the top under child; keys are set in sorted order whatever the
// map's order.
func TestSetExtras(t *testing.T) {
	t.Parallel()
	obj := NewObject()
	obj.Set("llmbench", NewObject())
	SetExtras(obj, map[string]any{"z": 1, "llmbench/b": 2, "llmbench/a": 3, "none/c": 4, "cost": 5})
	var b strings.Builder
	if err := obj.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want := `{"llmbench": {"a": 3, "b": 2}, "cost": 5, "c": 4, "z": 1}` // "cost" < "llmbench/…" < "none/c" < "z"
	if got := strings.Join(strings.Fields(b.String()), " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestUsersFilename: --label or the backend, the users, the model after
// its last "/", the date.
func TestUsersFilename(t *testing.T) {
	t.Parallel()
	label := "mine"
	for _, tt := range []struct {
		p    record.Params
		want string
	}{
		{record.Params{Backend: "openai", ModelID: "org/m-7b", Date: "20261202-010203"}, "openai-users16-m-7b-20261202-010203.json"},
		{record.Params{Backend: "openai", ModelID: "m", Date: "d", Label: &label}, "mine-users16-m-d.json"},
	} {
		if got := UsersFilename(&tt.p, 16); got != tt.want {
			t.Errorf("UsersFilename = %q, want %q", got, tt.want)
		}
	}
}
