package calibrate

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// A two-request truth log as the simulator writes it (a models-list line
// without an id is skipped).
const truthLog = `{"seq":1,"endpoint":"models","stream":false,"arrival_unix_ns":1,"end_unix_ns":2,"status":200,"prompt_tokens":0,"completion_tokens":0,"chunks":[]}
{"seq":2,"request_id":"c-0","endpoint":"completions","stream":true,"arrival_unix_ns":1000000000,"end_unix_ns":0,"status":200,"prompt_tokens":3,"completion_tokens":2,"chunks":[{"kind":"token","tokens":1,"write_start_unix_ns":1050000000,"write_end_unix_ns":1050000100},{"kind":"token","tokens":1,"write_start_unix_ns":1060000000,"write_end_unix_ns":1060000100},{"kind":"usage","tokens":0,"write_start_unix_ns":1060000200,"write_end_unix_ns":1060000300},{"kind":"done","tokens":0,"write_start_unix_ns":1060000400,"write_end_unix_ns":1060000500}]}
{"seq":3,"request_id":"c-1","endpoint":"completions","stream":true,"arrival_unix_ns":2000000000,"end_unix_ns":0,"status":200,"prompt_tokens":3,"completion_tokens":2,"chunks":[{"kind":"token","tokens":1,"write_start_unix_ns":2050000000,"write_end_unix_ns":2050000100},{"kind":"token","tokens":1,"write_start_unix_ns":2060000000,"write_end_unix_ns":2060000100}]}
`

func id(i int) string { return "c-" + strconv.Itoa(i) }

func TestCompare(t *testing.T) {
	t.Parallel()
	truth, err := ReadTruth(strings.NewReader(truthLog))
	if err != nil {
		t.Fatal(err)
	}
	if len(truth) != 2 || len(truth["c-0"].Writes) != 2 {
		t.Fatalf("truth %+v", truth)
	}
	recs := []record.Record{
		{Index: 0, Success: true, TTFT: 0.051, ITL: []float64{0.0105}}, // 1 ms late first, 0.5 ms long gap
		{Index: 1, Success: true, TTFT: 0.053, ITL: []float64{0.0095}}, // 3 ms late first, 0.5 ms short gap
		{Index: 2, Success: false},                                     // failed: not compared
	}
	e, err := Compare(recs, id, truth)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if e.Matched != 2 || e.Gaps != 2 || !near(e.TTFTMeanMs, 2) || !near(e.TTFTP99Ms, 2.98) ||
		!near(e.ITLMeanMs, 0) || !near(e.ITLP99Ms, 0.49) || !near(e.ServerTTFTMeanMs, 50) {
		t.Errorf("errors %+v", e)
	}
	recs[0].ITL = nil
	if _, err := Compare(recs, id, truth); err == nil || !strings.Contains(err.Error(), "wrote 2 token chunks, the client stamped 1") {
		t.Errorf("a lost chunk: %v", err)
	}
	if _, err := Compare([]record.Record{{Index: 7, Success: true}}, id, truth); err == nil {
		t.Error("a record without truth was accepted")
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	step := func(n int, errMs float64, failed int) Step {
		return Step{Streams: n, Errors: Errors{Matched: n, TTFTMeanMs: errMs}, Failed: failed}
	}
	tests := []struct {
		name  string
		steps []Step
		bound float64
		want  int
	}{
		{"largest step inside the bound", []Step{step(1, 0.3, 0), step(100, 0.9, 0), step(1000, 40, 0)}, 1, 100},
		{"order of the steps does not matter", []Step{step(1000, 40, 0), step(1, 0.3, 0), step(100, 3, 0)}, 5, 100},
		{"a failed request disqualifies the step", []Step{step(1, 0.3, 0), step(100, 0.5, 2)}, 1, 1},
		{"a larger step back inside does not count past a miss", []Step{step(1, 0.3, 0), step(100, 9, 0), step(500, 0.2, 0)}, 1, 1},
		{"none inside", []Step{step(1, 7, 0)}, 5, 0},
	}
	for _, tt := range tests {
		if got := Within(tt.steps, tt.bound); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
