package metrics

import "testing"

func TestStatKeyConstants(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ key, stat, metric string }{
		{KeyMeanTTFT, "mean", TTFT}, {KeyMedianTTFT, "median", TTFT}, {KeyP99TTFT, "p99", TTFT},
		{KeyMeanTPOT, "mean", TPOT}, {KeyMedianTPOT, "median", TPOT}, {KeyP90TPOT, "p90", TPOT}, {KeyP99TPOT, "p99", TPOT},
		{KeyMeanITL, "mean", ITL}, {KeyP99ITL, "p99", ITL},
		{KeyMeanE2EL, "mean", E2EL}, {KeyP99E2EL, "p99", E2EL},
	} {
		if got := StatKey(tt.stat, tt.metric); got != tt.key {
			t.Errorf("StatKey(%q, %q) = %q, the constant says %q", tt.stat, tt.metric, got, tt.key)
		}
	}
}
