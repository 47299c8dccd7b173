package stream

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
)

func TestMeter(t *testing.T) {
	t.Parallel()
	b := NewBudget(12 << 10)
	m1 := Meter{Max: 8 << 10, Budget: b}
	m2 := Meter{Max: 8 << 10, Budget: b}
	if err := m1.Keep(6 << 10); err != nil {
		t.Fatal(err)
	}
	if err := m1.Line(3 << 10); !errors.Is(err, ErrResponseTooLarge) {
		t.Errorf("per-response cap: %v", err) // 9 KiB > 8 KiB
	}
	if err := m2.Keep(5 << 10); !errors.Is(err, ErrResponseTooLarge) || !strings.Contains(err.Error(), "together") {
		t.Errorf("shared cap: %v", err) // 8 KiB reserved by m1 (4 KiB steps) + 8 KiB > 12 KiB
	}
	if err := m2.Keep(2 << 10); err != nil {
		t.Errorf("within the shared cap: %v", err)
	}
	m1.Release()
	m2.Release()
	if b.Used() != 0 || m1.Held() != 0 {
		t.Errorf("after Release: used %d, held %d", b.Used(), m1.Held())
	}
}

// TestCollectorTooLarge: the collector stops at its cap with the class
// response_too_large and keeps what it measured.
func TestCollectorTooLarge(t *testing.T) {
	t.Parallel()
	var resp backend.Response
	var c Collector
	c.Reset(&resp)
	c.Meter.Max = 4 << 10
	msg := []byte(`data: {"choices":[{"text":"0123456789"}]}` + "\n\n")
	now := time.Now()
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = c.Feed(msg, now)
	}
	if !errors.Is(err, ErrResponseTooLarge) || resp.ErrClass != record.ErrResponseTooLarge {
		t.Fatalf("err %v, class %q", err, resp.ErrClass)
	}
	// 18 bytes per chunk (10 of text, 8 of stamp): 227 fit in 4 KiB.
	if n := resp.Chunks.Len(); n != (4<<10)/(10+ChunkStampBytes) {
		t.Errorf("%d chunk times kept", n)
	}
	if !strings.Contains(resp.Err.Error(), "after 227 token chunks") {
		t.Errorf("message: %v", resp.Err)
	}
}
