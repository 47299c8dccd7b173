package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// TestWriteRecordsRoundTrip: the merged records file reads back as one
// merged worker on the earliest anchor with every record, and merges
// again into the same run.
func TestWriteRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	m, err := Merge([]Input{worker(0, 2, 5000, 1, 0, 2), worker(1, 2, 0, 1, 1, 3)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteRecords(&b, m); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "merged.records.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := ReadInput(p)
	if err != nil {
		t.Fatal(err)
	}
	if w := in.Header.Worker; w == nil || !w.Merged || w.Count != 2 || in.Header.Start.UnixNano != m.Anchor.UnixNano || len(in.Records) != 4 {
		t.Errorf("read back: worker %+v, anchor %v, %d records", in.Header.Worker, in.Header.Start, len(in.Records))
	}
	for i := range in.Records {
		if in.Records[i].StartTime != m.Records[i].StartTime || in.Records[i].Index != m.Records[i].Index {
			t.Errorf("record %d: %+v, want %+v", i, in.Records[i], m.Records[i])
		}
	}
}

// TestNotesAndObject: the notes name the run, the unsynchronised and
// unfinished workers; the result carries llmbench_merge.
func TestNotesAndObject(t *testing.T) {
	t.Parallel()
	m := &Result{Worker: record.WorkerInfo{RunID: "run-a", Count: 3}, Unsynced: []int{2}, Unfinished: []int{1},
		Params: record.Params{DurationS: 1, Tokenizer: record.TokenizerNone}}
	var b strings.Builder
	WriteNotes(&b, m)
	for _, want := range []string{"Merged run run-a: 3 workers, 0 requests", "worker(s) [2] had a clock", "worker(s) [1] did not finish"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "agreed within") {
		t.Errorf("a clock bound without one:\n%s", b.String())
	}
	mp, err := metrics.ParamsFrom(&m.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(nil, mp)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := Object(m, s, report.ResultOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := obj.Get("llmbench_merge")
	if mm, _ := v.(map[string]any); !ok || mm["run_id"] != "run-a" || mm["workers"] != 3 {
		t.Errorf("llmbench_merge = %v", v)
	}
}
