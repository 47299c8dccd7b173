package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/record"
)

// SetExtra sets key in the result object; "parent/child" sets child
// inside the existing object parent (the llmbench object), else at the
// top.
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
