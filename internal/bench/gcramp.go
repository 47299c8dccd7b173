package bench

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// rampBytesPerStream is what the heap goal allows for each stream the
// timed run will hold in flight: what one holds at its peak (~10 KB of
// heap and stack at 1,000 streams, BENCHMARKS.md "The ramp without a
// collection") with room for the garbage its request leaves.
const rampBytesPerStream = 16 << 10

// gcRamp keeps the runtime's GC percent raised while timed runs are
// ramping up; runs may overlap (tests), so the first saves the setting and
// the last restores it.
var gcRamp struct {
	mu     sync.Mutex
	active int
	saved  int
}

// rampGC raises the GC's heap goal for the start of a timed run that will
// hold about streams requests in flight, so that the ramp from an idle
// heap to all of them does not collect on its way up. At 1,000 streams
// the ramp otherwise collects twice, each time scanning every stream's
// stack while TTFTs are being measured: ~3.5 % of the client's CPU. The
// goal becomes the live heap plus rampBytesPerStream per stream, which
// they hold at their peak anyway; the usual pacing (GOGC) returns after
// the first collection, so a long run's memory is what it was. A GOGC of
// off is left alone, and GOMEMLIMIT still bounds the heap. restore ends
// the ramp if no collection has yet.
func rampGC(streams int) (restore func()) {
	if streams <= 1 {
		return func() {}
	}
	// Before the first collection the live heap reads 0; the runtime's
	// smallest heap goal is 4 MiB.
	live := max(liveHeap(), 4<<20)
	percent := int(min(uint64(streams)*rampBytesPerStream*100/live, 1<<20))
	gcRamp.mu.Lock()
	defer gcRamp.mu.Unlock()
	old := debug.SetGCPercent(percent)
	if gcRamp.active == 0 {
		gcRamp.saved = old
	}
	if old < 0 || percent < old {
		debug.SetGCPercent(old) // off, or already higher: keep it
	}
	gcRamp.active++
	var once sync.Once
	end := func() { once.Do(endRamp) }
	// A finalizer runs after the collection that finds its object
	// unreachable: the first one of the run. The object is pointerful so
	// that it is not a tiny allocation, whose finalizer may never run.
	sentinel := &struct{ _ *int }{}
	runtime.SetFinalizer(sentinel, func(*struct{ _ *int }) { end() })
	return end
}

// endRamp restores the saved GC percent when no other run is ramping.
func endRamp() {
	gcRamp.mu.Lock()
	defer gcRamp.mu.Unlock()
	if gcRamp.active--; gcRamp.active == 0 {
		debug.SetGCPercent(gcRamp.saved)
	}
}

// liveHeap is the heap marked live by the last collection, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
