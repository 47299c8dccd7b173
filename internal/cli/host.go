package cli

import (
	"os"

	"github.com/llmbench/llmbench/internal/host"
	"github.com/llmbench/llmbench/internal/record"
)

// ensureFileLimit is host.EnsureFileLimit, its refusal exit code 1 (the
// run cannot be made on this host as it is).
func ensureFileLimit(streams int) error {
	if err := host.EnsureFileLimit(streams); err != nil {
		return &ExitError{Code: 1, Msg: err.Error()}
	}
	return nil
}

// readClockSync is host.ClockSync, for the worker block of the records.
func readClockSync() *record.ClockSync { return host.ClockSync() }

// osGetenv is the real environment lookup; only Main uses it.
func osGetenv(key string) string { return os.Getenv(key) }
