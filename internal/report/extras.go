package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/stats"
)

// SetExtra sets key in a result object; "parent/child" sets child inside
// the parent object when there is one (the ExtrasKey object of a result
// with Extras), else child at the top.
func SetExtra(obj *Object, key string, v any) {
	if parent, child, ok := strings.Cut(key, "/"); ok {
		if p, found := obj.Get(parent); found {
			if po, isObj := p.(*Object); isObj {
				po.Set(child, v)
				return
			}
		}
		key = child
	}
	obj.Set(key, v)
}

// RunsArray is llmbench.runs: one object per run with its numeric
// figures, keys sorted (the saved file must not depend on map order).
func RunsArray(figs []map[string]float64) []any {
	out := make([]any, len(figs))
	for i, m := range figs {
		o := NewObject()
		for _, key := range slices.Sorted(maps.Keys(m)) {
			o.Set(key, m[key])
		}
		out[i] = o
	}
	return out
}

// RunsExtras are the keys a result of --runs gets (SetExtra's form):
// llmbench.runs and, under --runs auto (conv not nil), llmbench.convergence.
func RunsExtras(figs []map[string]float64, conv *stats.Convergence) map[string]any {
	x := map[string]any{ExtrasKey + "/" + RunsKey: RunsArray(figs)}
	if conv != nil {
		x[ExtrasKey+"/"+ConvergenceKey] = conv
	}
	return x
}

// SetRuns sets RunsExtras in a saved result, in key order.
func SetRuns(obj *Object, figs []map[string]float64, conv *stats.Convergence) {
	x := RunsExtras(figs, conv)
	for _, key := range slices.Sorted(maps.Keys(x)) {
		SetExtra(obj, key, x[key])
	}
}

// SetExtras sets each of extra's keys (SetExtra) in sorted order: the
// saved file must not depend on map iteration order.
func SetExtras(obj *Object, extra map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		SetExtra(obj, k, extra[k])
	}
}

// UsersFilename is a closed-loop run's result file name in vLLM's shape
// (ResultFilename's, named after its users: vLLM's name would say
// "infqps" and "concurrency16" of it): {label}-users{N}-{model}-{date}.json,
// label being --label or the backend and model the part of the model id
// after its last "/".
func UsersFilename(p *record.Params, users int) string {
	base := p.ModelID
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	label := p.Backend
	if p.Label != nil && *p.Label != "" {
		label = *p.Label
	}
	return fmt.Sprintf("%s-users%d-%s-%s.json", label, users, base, p.Date)
}
