package host

import (
	"syscall"

	"github.com/llmbench/llmbench/internal/record"
)

// The kernel's status bits (linux/timex.h): STA_UNSYNC, the clock is not
// disciplined by NTP/chrony; STA_NANO, the offset is in nanoseconds.
const (
	staUnsync = 0x0040
	staNano   = 0x2000
)

// ClockSync asks the kernel, with a read-only adjtimex(2), how well
// the wall clock is synchronised; nil when the call fails. The figures
// are the NTP/chrony daemon's, kept by the kernel: no network is used.
func ClockSync() *record.ClockSync {
	var tx syscall.Timex // Modes 0: read only, no privilege needed
	if _, err := syscall.Adjtimex(&tx); err != nil {
		return nil
	}
	offset := int64(tx.Offset) // microseconds, or nanoseconds with STA_NANO
	if tx.Status&staNano != 0 {
		offset /= 1000
	}
	return &record.ClockSync{
		Source:     "adjtimex",
		Synced:     tx.Status&staUnsync == 0,
		OffsetUS:   offset,
		MaxErrorUS: int64(tx.Maxerror),
		EstErrorUS: int64(tx.Esterror),
	}
}
