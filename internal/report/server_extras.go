package report

import (
	"io"

	"github.com/llmbench/llmbench/internal/servermetrics"
)

// ServerMetricsKey is where the server's Result goes in a result file
// (SetExtra's form): the llmbench object's server_metrics
// (docs/server-metrics.md).
const ServerMetricsKey = ExtrasKey + "/server_metrics"

// WriteServerSection prints the Server Specifics section of what w read
// under the table; nothing when it read nothing (w nil: not asked for).
func WriteServerSection(out io.Writer, w *servermetrics.Window) error {
	if res := w.Result(); res != nil {
		return WriteServerSpecifics(out, res)
	}
	return nil
}

// AddServerExtras puts what w read in a run's extras (SetExtras' keys)
// and the cross-check's notes in the self-check object at selfCheckKey,
// when there is one.
func AddServerExtras(extra map[string]any, w *servermetrics.Window, selfCheckKey string) {
	res := w.Result()
	if res == nil {
		return
	}
	extra[ServerMetricsKey] = res
	if sc, ok := extra[selfCheckKey].(*Object); ok {
		if notes := w.CrossCheckNotes(); notes != nil {
			sc.Set("server_cross_check", notes)
		}
	}
}

// SetServerResult puts what w read in a sweep step's result object.
func SetServerResult(obj *Object, w *servermetrics.Window) {
	if res := w.Result(); res != nil {
		SetExtra(obj, ServerMetricsKey, res)
	}
}
