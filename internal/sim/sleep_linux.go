//go:build linux

package sim

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d in the kernel (nanosleep), bypassing the Go
// runtime's millisecond-granular idle timer. It reports whether it slept.
func preciseSleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR: the caller re-checks the time
	return true
}
