package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepKeepsInterruptedStep: a step stopped by Ctrl-C is left out of
// the analysis but not lost: its partial result, marked interrupted, is
// saved under the step's name, and the result and the sweep's notes
// name it; interrupted in the first step, nothing is analysed, but the
// partial result is still saved and named.
func TestSweepKeepsInterruptedStep(t *testing.T) {
	t.Parallel()
	grows := func(c int) float64 { return 0.05 * float64(c) }
	for _, c := range []struct {
		name  string
		at    int // the load interrupted
		steps int // rows analysed
	}{
		{"in the third step: two analysed", 4, 2},
		{"in the first step: none analysed", 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			steps := &idSteps{fakeSteps: fakeSteps{ttft: grows}, interruptAt: c.at}
			d, res, errw, err := sweepOf(t, Config{PromptsPerStep: 5}, steps, 1, 2, 4, 8)
			if c.steps == 0 && err != ErrNothingMeasured || c.steps > 0 && err != nil {
				t.Fatalf("error %v\n%s", err, errw)
			}
			path := filepath.Join(d.Dir(), fmt.Sprintf("concurrency-%d.json", c.at))
			b, rerr := os.ReadFile(path)
			var obj struct {
				Completed int `json:"completed"`
				Llmbench  struct {
					Interrupted bool `json:"interrupted"`
				} `json:"llmbench"`
			}
			if rerr != nil || json.Unmarshal(b, &obj) != nil || obj.Completed != 3 || !obj.Llmbench.Interrupted {
				t.Errorf("%s: %v, completed %d, interrupted %v; want the 3 requests it finished, marked interrupted",
					path, rerr, obj.Completed, obj.Llmbench.Interrupted)
			}
			if !strings.Contains(res.Stopped, "was interrupted after 3 completed requests") || !strings.Contains(res.Stopped, path) {
				t.Errorf("stopped %q does not name the partial result %s", res.Stopped, path)
			}
			if c.steps == 0 {
				return
			}
			if len(res.Sweep.Steps) != c.steps {
				t.Errorf("%d steps analysed, want %d", len(res.Sweep.Steps), c.steps)
			}
			if !strings.Contains(strings.Join(res.Sweep.Notes, "\n"), path) {
				t.Errorf("the sweep's notes do not name the partial result:\n%s", strings.Join(res.Sweep.Notes, "\n"))
			}
		})
	}
}
