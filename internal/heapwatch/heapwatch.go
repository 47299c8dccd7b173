// Package heapwatch samples the process's live heap while a benchmark
// runs, for the peak-memory figures in
// BENCHMARKS.md#memory-of-a-response-that-never-ends and
// BENCHMARKS.md#tokenizer-memory-on-a-long-text. It is for benchmarks and
// tests only: the sampler wakes every millisecond.
package heapwatch

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Start collects garbage, then samples the live heap (runtime/metrics,
// objects in use including not-yet-swept garbage) every millisecond
// until stop is called, and once more at stop. stop returns the largest
// sample and the heap at the start.
func Start() (stop func() (peak, base uint64)) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var top atomic.Uint64
	top.Store(base)
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > top.Load() {
			top.Store(v)
		}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-quit:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return func() (uint64, uint64) { close(quit); <-done; return top.Load(), base }
}
