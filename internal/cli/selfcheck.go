package cli

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// selfCheckKey is where the self-check goes in the result: the llmbench
// object's self_check (see report.SetExtra).
const selfCheckKey = report.ExtrasKey + "/" + report.SelfCheckKey

// writeSelfCheck prints the outcome's self-check line (report.WriteSelfCheck).
func writeSelfCheck(w io.Writer, o *bench.Outcome) {
	report.WriteSelfCheck(w, o.Verdict, &o.SelfCheck, o.Preconnected)
}

// selfCheckObject is the outcome's self_check object (report.SelfCheckObject).
func selfCheckObject(o *bench.Outcome) *report.Object {
	return report.SelfCheckObject(o.Verdict, &o.SelfCheck, o.Preconnected)
}

// requireValid is --require-valid's exit policy: exit 1 unless the
// self-check verdict is valid.
func requireValid(on bool, o *bench.Outcome) error {
	if !on || o.Verdict.Verdict == selfcheck.Valid {
		return nil
	}
	return &ExitError{Code: 1, Msg: fmt.Sprintf("--require-valid: the self-check says %s", o.Verdict)}
}
