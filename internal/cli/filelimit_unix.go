//go:build unix

package cli

import (
	"fmt"
	"syscall"
)

// fileMargin is the open files a run needs beside one per stream: the
// listener of --metrics-addr, the records and result files, the
// tokenizer, stdio, the runtime's own.
const fileMargin = 64

// ensureFileLimit makes sure streams concurrent connections fit under
// RLIMIT_NOFILE before anything is sent: each stream holds one socket.
// Go raises the soft limit to the hard one at start-up; when even the hard
// limit is too low, the run stops here with one line naming the limit, the
// need and the fix, instead of losing requests to "too many open files"
// half-way (docs/fidelity.md, "Scale").
func ensureFileLimit(streams int) error {
	need := uint64(streams) + uint64(streams)/10 + fileMargin
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // unknown: let the run try
	}
	if lim.Cur >= need {
		return nil
	}
	if lim.Max > lim.Cur {
		raised := lim
		raised.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim.Cur = lim.Max
		}
	}
	if lim.Cur >= need {
		return nil
	}
	return &ExitError{Code: 1, Msg: fmt.Sprintf(
		"%d concurrent streams need about %d open files (one per stream plus margin) but the open-file limit (RLIMIT_NOFILE) is %d; raise it, e.g. ulimit -n %d, or lower the concurrency",
		streams, need, lim.Cur, need)}
}
