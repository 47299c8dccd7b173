// Package host asks the machine the client runs on what a run depends on
// beyond Go: the open-file limit a run's streams need (RLIMIT_NOFILE) and
// how well the wall clock is synchronised (adjtimex(2)), which merged
// workers' common timeline assumes (docs/distributed.md). It reads and at
// most raises the soft file limit to the hard one; it changes nothing
// else, and off Unix or Linux it answers "nothing to check" or "unknown".
package host

import "fmt"

// FileLimitError is a file limit too low for a run's streams, even
// raised to the hard limit.
type FileLimitError struct {
	Streams int
	// Need is the files the streams need (one each plus a tenth and a
	// margin); Limit is the limit that stayed below it.
	Need, Limit uint64
}

func (e *FileLimitError) Error() string {
	return fmt.Sprintf("%d concurrent streams need about %d open files (one per stream plus margin) but the open-file limit (RLIMIT_NOFILE) is %d; raise it, e.g. ulimit -n %d, or lower the concurrency",
		e.Streams, e.Need, e.Limit, e.Need)
}

// fileMargin is the open files a run needs beside one per stream: the
// listener of --metrics-addr, the records and result files, the
// tokenizer, stdio, the runtime's own.
const fileMargin = 64

// filesNeeded is the open files streams concurrent connections need.
func filesNeeded(streams int) uint64 {
	return uint64(streams) + uint64(streams)/10 + fileMargin
}
