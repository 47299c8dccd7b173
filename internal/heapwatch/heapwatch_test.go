package heapwatch

import "testing"

// TestStartSeesAnAllocation: a 64 MiB slice alive at stop shows in the
// peak above the base (stop samples once more, so no tick is needed).
func TestStartSeesAnAllocation(t *testing.T) {
	stop := Start()
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	peak, base := stop()
	if peak < base+64<<20 {
		t.Errorf("peak %d, base %d: want at least 64 MiB more", peak, base)
	}
	if b[len(b)-1] != 1 { // keeps b alive until after stop
		t.Fatal("unreachable")
	}
}
