package merge

import (
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// worker builds worker w's input: anchor at base + startNS, records with
// the given indices starting at start seconds on its own clock.
func worker(w, count int, startNS int64, dur float64, idx ...int) Input {
	base := int64(1_700_000_000_000_000_000)
	in := Input{
		Name:   "w" + string(rune('0'+w)),
		Header: record.Header{Start: &record.Anchor{UnixNano: base + startNS}, Worker: &record.WorkerInfo{RunID: "run-a", ConfigHash: "h", Index: w, Count: count}},
		Params: record.Params{DurationS: dur, Date: "d" + string(rune('0'+w))},
	}
	for k, i := range idx {
		it := 0.1 * float64(k)
		in.Records = append(in.Records, record.Record{Index: i, Success: true, StartTime: it + 0.01, IntendedTime: &it, TTFT: 0.05, Latency: 0.2})
	}
	return in
}

// TestMergeRebases: records move onto the earliest anchor by the
// difference of anchors, the duration runs to the latest end, params are
// worker 0's.
func TestMergeRebases(t *testing.T) {
	t.Parallel()
	in := []Input{
		worker(1, 2, 250*int64(time.Millisecond), 2.0, 1, 3),
		worker(0, 2, 0, 2.1, 0, 2),
	}
	res, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Params.DurationS != 0.25+2.0 || res.Params.Date != "d0" || res.StartSpread != 250*time.Millisecond {
		t.Errorf("duration %v, date %s, spread %v", res.Params.DurationS, res.Params.Date, res.StartSpread)
	}
	want := []float64{0.01, 0.26, 0.11, 0.1 + 0.01 + 0.25}
	for i, r := range res.Records {
		if r.Index != i || r.StartTime != want[i] {
			t.Errorf("record %d: index %d start %v, want %v", i, r.Index, r.StartTime, want[i])
		}
	}
	if *res.Records[1].IntendedTime != 0.25 || *in[0].Records[0].IntendedTime != 0 {
		t.Error("intended time not re-based, or the input was changed")
	}
	if !res.Worker.Merged || res.Worker.RunID != "run-a" || res.Anchor.UnixNano != in[1].Header.Start.UnixNano {
		t.Errorf("worker %+v anchor %v", res.Worker, res.Anchor)
	}
}

// TestMergeRefuses: one clear line for each input set that is not one
// complete run.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	other := worker(1, 2, 0, 1, 1)
	other.Header.Worker.RunID = "run-b"
	hash := worker(1, 2, 0, 1, 1)
	hash.Header.Worker.ConfigHash = "x"
	single := worker(1, 2, 0, 1, 1)
	single.Header.Worker = nil
	noAnchor := worker(1, 2, 0, 1, 1)
	noAnchor.Header.Start = nil
	for _, tc := range []struct {
		why  string
		in   []Input
		want string
	}{
		{"different runs", []Input{worker(0, 2, 0, 1, 0), other}, "different runs"},
		{"different workloads", []Input{worker(0, 2, 0, 1, 0), hash}, "different workloads"},
		{"a missing worker", []Input{worker(0, 3, 0, 1, 0), worker(2, 3, 0, 1, 2)}, "worker 1 of 0..2 missing"},
		{"a duplicate worker", []Input{worker(0, 2, 0, 1, 0), worker(0, 2, 0, 1, 2)}, "worker 0 appears twice"},
		{"a single-process file", []Input{worker(0, 2, 0, 1, 0), single}, "not a worker's records"},
		{"no anchor", []Input{worker(0, 2, 0, 1, 0), noAnchor}, "no wall-clock anchor"},
		{"overlapping shares", []Input{worker(0, 2, 0, 1, 0), worker(1, 2, 0, 1, 0)}, "request 0 is in the records of w0 and w1"},
		{"nothing", nil, "no inputs"},
	} {
		_, err := Merge(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.why, err, tc.want)
		}
	}
}

// TestMergeClocks: unsynchronised workers are named; the bound is the sum
// of the two largest maximum errors of the synchronised ones.
func TestMergeClocks(t *testing.T) {
	t.Parallel()
	in := []Input{worker(0, 3, 0, 1, 0), worker(1, 3, 0, 1, 1), worker(2, 3, 0, 1, 2)}
	in[0].Header.Worker.Clock = &record.ClockSync{Synced: true, MaxErrorUS: 400}
	in[1].Header.Worker.Clock = &record.ClockSync{Synced: false, MaxErrorUS: 16_000_000}
	in[2].Header.Worker.Clock = &record.ClockSync{Synced: true, MaxErrorUS: 1500}
	res, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unsynced) != 1 || res.Unsynced[0] != 1 || res.ClockBound != 1900*time.Microsecond || res.Worker.Clock != nil {
		t.Errorf("unsynced %v, bound %v, merged clock %v", res.Unsynced, res.ClockBound, res.Worker.Clock)
	}
}
