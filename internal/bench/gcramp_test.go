package bench

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the GC percent (setting it back at once).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestRampGC: the ramp raises the heap goal for the streams to come, the
// first collection after it restores the percent it found, restore is
// safe to call after that, overlapping ramps restore once, and a GOGC of
// off is kept.
func TestRampGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if restore := rampGC(1); gcPercent() != 100 {
		t.Fatalf("one stream changed the percent to %d", gcPercent())
	} else {
		restore()
	}

	restore := rampGC(1000)
	if p := gcPercent(); p <= 100 {
		t.Fatalf("percent %d during the ramp for 1,000 streams, want > 100", p)
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 && time.Now().Before(deadline) {
		runtime.GC() // the sentinel's finalizer runs after this
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercent(); p != 100 {
		t.Fatalf("percent %d after a collection, want 100 back", p)
	}
	restore()
	if gcRamp.active != 0 || gcPercent() != 100 {
		t.Fatalf("after restore: %d ramps active, percent %d", gcRamp.active, gcPercent())
	}

	r1, r2 := rampGC(1000), rampGC(2000)
	r1()
	r2()
	r2()
	if gcRamp.active != 0 || gcPercent() != 100 {
		t.Fatalf("after two ramps: %d active, percent %d", gcRamp.active, gcPercent())
	}

	debug.SetGCPercent(-1)
	r := rampGC(1000)
	if p := gcPercent(); p != -1 {
		t.Errorf("GOGC=off became %d", p)
	}
	r()
	if p := gcPercent(); p != -1 {
		t.Errorf("GOGC=off restored as %d", p)
	}
}
