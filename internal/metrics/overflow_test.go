package metrics

import (
	"math"
	"testing"
)

// TestAddCountOverflow: totals never wrap to a negative figure.
func TestAddCountOverflow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b, want int
		ok         bool
	}{
		{1, 2, 3, true},                              // ordinary sum
		{math.MaxInt - 1, 1, math.MaxInt, true},      // exactly at the limit
		{math.MaxInt - 1, 2, math.MaxInt - 1, false}, // one past: refused, a unchanged
		{4e18, 4e18, 8e18, true},                     // two huge records still fit
		{8e18, 4e18, 8e18, false},                    // a third would wrap negative
	} {
		got, ok := addCount(tc.a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("addCount(%d, %d) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}
