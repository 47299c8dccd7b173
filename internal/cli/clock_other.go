//go:build !linux

package cli

import "github.com/llmbench/llmbench/internal/record"

// readClockSync is unknown off Linux (no adjtimex): nil.
func readClockSync() *record.ClockSync { return nil }
