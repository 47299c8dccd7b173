package calibrate

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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

func TestRequestsPerRepetition(t *testing.T) {
	t.Parallel()
	const nominal = 140 * time.Millisecond // 50 ms TTFT + 9 gaps of 10 ms
	rule := Rule{Requests: 100, MinTime: 2 * time.Second}
	tests := []struct {
		name    string
		rule    Rule
		streams int
		nominal time.Duration
		want    int
	}{
		{"one stream: the request count decides", rule, 1, nominal, 100},
		{"a few streams: whole waves past the count", rule, 3, 100 * time.Millisecond, 102},
		{"many streams: the time decides (2 s / 140 ms = 15 waves)", rule, 100, nominal, 1500},
		{"a long request: one wave is enough", rule, 1000, 5 * time.Second, 1000},
		{"no nominal time: the count only", rule, 10, 0, 100},
		{"no minimum time", Rule{Requests: 100}, 7, nominal, 105},
		{"too many saturates", Rule{Requests: 1, MinTime: 1 << 62}, 1 << 20, 1, math.MaxInt},
	}
	for _, tt := range tests {
		if got := tt.rule.RequestsPerRepetition(tt.streams, tt.nominal); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestNewRow(t *testing.T) {
	t.Parallel()
	reps := []Repetition{
		{Errors: Errors{Matched: 100, TTFTMeanMs: 0.4, TTFTP99Ms: 2, ITLMeanMs: 0.01, ITLP99Ms: 0.3}, Verdict: "valid"},
		{Errors: Errors{Matched: 100, TTFTMeanMs: 0.9, TTFTP99Ms: 1.5, ITLMeanMs: -0.02, ITLP99Ms: 0.5}, Verdict: "degraded", Failed: 1},
		{Errors: Errors{Matched: 100, TTFTMeanMs: 0.6, TTFTP99Ms: 3, ITLMeanMs: 0, ITLP99Ms: 0.4}, Verdict: "valid"},
	}
	row := NewRow(10, reps)
	want := Row{Streams: 10, Repetitions: reps, TTFTMeanMs: Range{0.4, 0.9}, TTFTP99Ms: Range{1.5, 3},
		ITLMeanMs: Range{-0.02, 0.01}, ITLP99Ms: Range{0.3, 0.5}, Failed: 1, Verdict: "degraded"}
	if !reflect.DeepEqual(row, want) {
		t.Errorf("row %+v\nwant %+v", row, want)
	}
	if r := NewRow(1, []Repetition{{Errors: Errors{TTFTMeanMs: math.NaN()}}}); !math.IsNaN(r.TTFTMeanMs.Min) || !math.IsNaN(r.TTFTMeanMs.Max) {
		t.Errorf("a repetition without a figure spans %+v, want NaN", r.TTFTMeanMs)
	}
}

func TestHeadlineWithin(t *testing.T) {
	t.Parallel()
	// row is a load whose repetitions had these mean TTFT errors, each on
	// 100 requests unless requests says otherwise.
	row := func(n, requests, failed int, means ...float64) Row {
		reps := make([]Repetition, len(means))
		for i, m := range means {
			reps[i] = Repetition{Requests: requests, Errors: Errors{Matched: requests - failed, TTFTMeanMs: m}, Failed: failed}
		}
		return NewRow(n, reps)
	}
	ok := func(n int, means ...float64) Row { return row(n, 100, 0, means...) }
	tests := []struct {
		name       string
		rows       []Row
		bound      float64
		want       int
		resolved   bool
		reasonPart string
	}{
		{"largest row inside the bound", []Row{ok(1, 0.3, 0.4, 0.2), ok(100, 0.9, 0.8, 1), ok(1000, 40, 38, 45)}, 1, 100, true, ""},
		{"order of the rows does not matter", []Row{ok(1000, 40, 41), ok(1, 0.3, 0.2), ok(100, 3, 4)}, 5, 100, true, ""},
		{"a failed request disqualifies the row", []Row{ok(1, 0.3, 0.3), row(100, 100, 2, 0.5, 0.5)}, 1, 1, true, ""},
		{"a larger row back inside does not count past a miss", []Row{ok(1, 0.3, 0.3), ok(100, 9, 8), ok(500, 0.2, 0.2)}, 1, 1, true, ""},
		{"none inside", []Row{ok(1, 7, 6, 8)}, 5, 0, true, ""},
		{"a negative error counts by its size", []Row{ok(1, -0.5, 0.5), ok(10, -2, -3)}, 1, 1, true, ""},
		// The defect: one request (or one repetition) decided the headline.
		{"a row on one request decides nothing", []Row{row(1, 1, 0, 0.3, 0.3, 0.3)}, 1, 0, false, "1 stream: a repetition rests on 1 requests, fewer than the 100"},
		{"a row on one repetition decides nothing", []Row{ok(1, 0.3), ok(10, 0.2)}, 1, 0, false, "1 stream ran 1 repetition, which gives no spread"},
		{"a spread across the bound withholds the headline", []Row{ok(1, 0.3, 0.4, 0.2), ok(100, 0.6, 1.4, 0.8), ok(500, 0.2, 0.2)}, 1, 1, false,
			"100 streams: mean TTFT error 0.600 to 1.400 ms over 3 repetitions, across the 1 ms bound"},
		{"a spread across the bound at the first row", []Row{ok(1, 4, 6)}, 5, 0, false, "1 stream: mean TTFT error 4.000 to 6.000 ms"},
		{"a spread wholly beyond the bound is a miss", []Row{ok(1, 0.3, 0.4), ok(100, 1.1, 3)}, 1, 1, true, ""},
	}
	for _, tt := range tests {
		h := HeadlineWithin(tt.rows, tt.bound)
		if h.Streams != tt.want || h.Resolved != tt.resolved || !strings.Contains(h.Reason, tt.reasonPart) || (tt.resolved && h.Reason != "") {
			t.Errorf("%s: %+v, want %d streams, resolved %v, reason with %q", tt.name, h, tt.want, tt.resolved, tt.reasonPart)
		}
	}
}
