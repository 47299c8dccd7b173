package load

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSchedule10k is a 10,000-request Poisson schedule.
func BenchmarkSchedule10k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Schedule(10000, Arrivals{Rate: 100, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunDispatch is the dispatcher's own cost per request (all due at
// once, no cap, fn does nothing).
func BenchmarkRunDispatch(b *testing.B) {
	offsets := make([]time.Duration, 1000)
	b.ReportAllocs()
	for b.Loop() {
		Run(context.Background(), offsets, Options{}, func(context.Context, Item) {})
	}
}
