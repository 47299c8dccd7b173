//go:build !linux

package host

import "github.com/llmbench/llmbench/internal/record"

// ClockSync is unknown off Linux (no adjtimex): nil.
func ClockSync() *record.ClockSync { return nil }
