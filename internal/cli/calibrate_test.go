package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/calibrate"
)

// TestCalibrate runs calibrate at two small loads against a simulator
// process (this test binary as "llmbench sim", through testscript's
// PATH entry) and checks the output's structure and that the errors are
// small beside the nominal figures: generous bounds that a busy machine
// does not break (the exact figures belong to BENCHMARKS.md).
func TestCalibrate(t *testing.T) {
	save := filepath.Join(t.TempDir(), "cal.json")
	code, out, errs := runCLI(t, "calibrate", "--sim-bin", "llmbench", "--streams", "1,20", "--tokens", "5",
		"--ttft", "50ms", "--itl", "20ms", "--save", save)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"ttft-mean", "itl-p99", "cpu/chunk-us", "sched-p99", "lag-p99", "events/s", "verdict",
		"Largest load measured within 1 ms of mean TTFT error:", "Calibration saved to"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Steps []calibrate.Step `json:"steps"`
		Cores int              `json:"cores"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 || res.Cores < 1 {
		t.Fatalf("saved %s", b)
	}
	for i, want := range []int{1, 20} {
		st := res.Steps[i]
		if st.Streams != want || st.Matched != want || st.Failed != 0 || st.Gaps != want*4 || st.Verdict == "" || st.EventsPerSecond <= 0 {
			t.Errorf("step %d: %+v", i, st)
		}
		// The server's own TTFT is the nominal 50 ms, give or take its timer.
		if st.ServerTTFTMeanMs < 49 || st.ServerTTFTMeanMs > 500 {
			t.Errorf("step %d: server TTFT %.3f ms, want about 50", i, st.ServerTTFTMeanMs)
		}
		// Stamps come after the writes: the errors are never (much) negative,
		// and small beside TTFT 50 ms and ITL 20 ms.
		if st.TTFTMeanMs < -1 || st.TTFTMeanMs > 50 || st.ITLMeanMs < -5 || st.ITLMeanMs > 10 {
			t.Errorf("step %d: TTFT error %.3f ms, ITL error %.3f ms: not small beside 50 / 20 ms", i, st.TTFTMeanMs, st.ITLMeanMs)
		}
	}
}
