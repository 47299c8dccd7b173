//go:build !linux

package sim

import "time"

// preciseSleep is unavailable here: the caller falls back to timers.
func preciseSleep(time.Duration) bool { return false }
