//go:build !unix

package bench

import "time"

// cpuTime is not available here: -1.
func cpuTime() time.Duration { return -1 }
