//go:build unix

package host

import "syscall"

// EnsureFileLimit makes sure streams concurrent connections fit under
// RLIMIT_NOFILE before anything is sent: each stream holds one socket.
// Go raises the soft limit to the hard one at start-up; when even the hard
// limit is too low, it returns a *FileLimitError naming the limit, the
// need and the fix, so that the run stops before it starts instead of
// losing requests to "too many open files" half-way (docs/fidelity.md,
// "Scale"). A limit it cannot read is no error: the run tries.
func EnsureFileLimit(streams int) error {
	need := filesNeeded(streams)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // unknown: let the run try
	}
	if uint64(lim.Cur) >= need { // Rlimit fields are int64 on FreeBSD
		return nil
	}
	if lim.Max > lim.Cur {
		raised := lim
		raised.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim.Cur = lim.Max
		}
	}
	if uint64(lim.Cur) >= need {
		return nil
	}
	return &FileLimitError{Streams: streams, Need: need, Limit: uint64(lim.Cur)}
}
