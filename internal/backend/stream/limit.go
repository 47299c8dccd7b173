package stream

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// DefaultMaxResponseBytes is what one response may hold when
// Meter.Max is 0: 16 MiB of generated text and chunk stamps, hundreds of
// times a real answer (128k tokens are about 0.5 MiB of text and 1 MiB of
// stamps).
const DefaultMaxResponseBytes = 16 << 20

// DefaultMaxTotalResponseBytes is what all the responses in flight may
// hold together when a Budget is made with limit 0: 1 GiB, whatever the
// concurrency. 10,000 streams of 4,000 tokens hold about 1 GiB / 10.
const DefaultMaxTotalResponseBytes = 1 << 30

// ChunkStampBytes is what one token chunk's arrival stamp holds (an
// offset in backend.Stamps), counted against the limits with the chunk's
// text.
const ChunkStampBytes = int(unsafe.Sizeof(time.Duration(0)))

// ErrResponseTooLarge is wrapped by the error of a response that outgrew
// its Meter (record.ErrResponseTooLarge).
var ErrResponseTooLarge = errors.New("response too large")

// Budget is a byte allowance shared by the responses in flight, so the
// memory they hold together is bounded whatever the concurrency. It is safe
// for concurrent use.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// NewBudget returns a Budget of limit bytes; limit <= 0 means
// DefaultMaxTotalResponseBytes.
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultMaxTotalResponseBytes
	}
	return &Budget{limit: limit}
}

// Limit is the budget's size in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Used is the bytes currently reserved.
func (b *Budget) Used() int64 { return b.used.Load() }

func (b *Budget) take(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	return true
}

// reserveStep is the granule in which a Meter reserves from its Budget: one
// atomic add per 4 KiB held, and at most 4 KiB unused per stream.
const reserveStep = 4 << 10

// Meter counts what one response holds in memory: the bytes kept (text
// and one ChunkStampBytes per token chunk) plus the transient bytes of a
// line not yet complete and of a message held across lines. When the sum
// would pass Max, or the shared Budget has no room left, the call fails
// with an error wrapping ErrResponseTooLarge. The zero value has limit
// DefaultMaxResponseBytes and no shared budget. A Meter is not safe for
// concurrent use; Release it when the response is done.
type Meter struct {
	// Max is the most one response may hold, in bytes; 0 means
	// DefaultMaxResponseBytes.
	Max int
	// Budget, when set, is shared with the other responses in flight.
	Budget *Budget

	kept, line, pending, reserved int64
}

// Keep accounts n more bytes kept until the end of the response.
func (m *Meter) Keep(n int) error { return m.set(m.kept+int64(n), m.line, m.pending) }

// Line sets the bytes of the incomplete line held by a LineSplitter.
func (m *Meter) Line(n int) error { return m.set(m.kept, int64(n), m.pending) }

// Pending sets the bytes of a message held across lines.
func (m *Meter) Pending(n int) error { return m.set(m.kept, m.line, int64(n)) }

// Held is the bytes currently accounted.
func (m *Meter) Held() int64 { return m.kept + m.line + m.pending }

// Release returns the reservation to the Budget and zeroes the counts.
func (m *Meter) Release() {
	if m.Budget != nil && m.reserved > 0 {
		m.Budget.used.Add(-m.reserved)
	}
	m.kept, m.line, m.pending, m.reserved = 0, 0, 0, 0
}

func (m *Meter) set(kept, line, pending int64) error {
	total := kept + line + pending
	limit := int64(m.Max)
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	if total > limit {
		return fmt.Errorf("%w: more than %d bytes of text and chunk stamps (%d per token chunk) in one response; raise --max-response-mib if this answer is real",
			ErrResponseTooLarge, limit, ChunkStampBytes)
	}
	if m.Budget != nil && total > m.reserved {
		need := (total - m.reserved + reserveStep - 1) / reserveStep * reserveStep
		if !m.Budget.take(need) {
			return fmt.Errorf("%w: the responses in flight together hold their limit of %d bytes (this one %d)",
				ErrResponseTooLarge, m.Budget.limit, total)
		}
		m.reserved += need
	}
	m.kept, m.line, m.pending = kept, line, pending
	return nil
}
