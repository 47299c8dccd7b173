package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/record"
)

// writeWorker saves worker w's records as a records file named as the
// workers name theirs, and returns its path.
func writeWorker(t *testing.T, dir string, in Input) string {
	t.Helper()
	var b bytes.Buffer
	s, err := record.NewStream(&b, in.Header)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.Records {
		if err := s.Add(&in.Records[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(&in.Params, 0); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "run-a-worker-"+strings.TrimPrefix(in.Name, "w")+".records.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, p, data string) string {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFiles: folders expand to their workers' records, a result gives
// the records beside it, repeats are dropped, and what is read back
// merges as the inputs in memory do.
func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w0 := writeWorker(t, dir, worker(0, 2, 0, 1, 0, 2))
	w1 := writeWorker(t, dir, worker(1, 2, 1000, 1, 1, 3))
	result := writeFile(t, filepath.Join(dir, "run-a-worker-1.json"), `{"duration": 1}`)
	summary := writeFile(t, filepath.Join(dir, "alone.json"), `{"duration": 1}`)

	files, err := ExpandFolders([]string{dir, result})
	if err != nil || !slices.Equal(files, []string{w0, w1, result}) {
		t.Fatalf("ExpandFolders = %v, %v", files, err)
	}
	if _, err := ExpandFolders([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "holds no worker records") {
		t.Errorf("empty folder: %v", err)
	}
	for i, f := range files {
		if files[i], err = RecordsPath(f); err != nil {
			t.Fatal(err)
		}
	}
	if files, err = Unique(files); err != nil || !slices.Equal(files, []string{w0, w1}) {
		t.Fatalf("Unique = %v, %v (the result's records are worker 1's)", files, err)
	}
	if _, err := RecordsPath(summary); err == nil || !strings.Contains(err.Error(), "is a summary without per-request records (no alone.records.jsonl)") {
		t.Errorf("summary: %v", err)
	}
	var inputs []Input
	for _, f := range files {
		in, err := ReadInput(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, *in)
	}
	m, err := Merge(inputs)
	if err != nil || len(m.Records) != 4 || m.Worker.Count != 2 {
		t.Fatalf("Merge of the files = %+v, %v", m, err)
	}
}

// TestSweepFiles: sweeps by content among files, sweep folders by their
// workers' sweep names, and no mix with a run's results.
func TestSweepFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "any-name.json"), `{"load_kind": "concurrency", "steps": []}`)
	folder := filepath.Join(dir, "w")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	inFolder := writeFile(t, filepath.Join(folder, "sweep-r-worker-0.json"), "{}")
	result := writeFile(t, filepath.Join(dir, "sweep-result.json"), `{"duration": 1}`)
	for _, tt := range []struct {
		args []string
		want []string
		err  string
	}{
		{[]string{sweep, folder}, []string{sweep, inFolder}, ""},
		{[]string{result, dir}, nil, ""},
		{[]string{sweep, result}, nil, "not both"},
		{[]string{filepath.Join(dir, "missing")}, nil, "no such file"},
	} {
		got, err := SweepFiles(tt.args)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) || !slices.Equal(got, tt.want) {
			t.Errorf("SweepFiles(%v) = %v, %v; want %v, %q", tt.args, got, err, tt.want, tt.err)
		}
	}
}

// TestStepOf: a merged step's load from its params, the think time and
// the busiest worker's CPU at that load.
func TestStepOf(t *testing.T) {
	t.Parallel()
	cpu := func(v float64) *float64 { return &v }
	sw := func(c *float64) SweepWorker {
		return SweepWorker{Sweep: &capacity.Sweep{LoadKind: capacity.Users, Steps: []capacity.Row{
			{Load: 4, MeanThinkS: 2, ClientCPU: c}, {Load: 8, MeanThinkS: 3, ClientCPU: cpu(0.9)}}}}
	}
	ws := []SweepWorker{sw(cpu(0.2)), sw(cpu(0.5)), sw(nil)}
	four := 4
	st := StepOf(ws, &record.Params{MaxConcurrency: &four})
	if st.Load != 4 || st.Kind != capacity.Users || st.MeanThinkS != 2 || st.ClientCPU == nil || *st.ClientCPU != 0.5 {
		t.Errorf("StepOf = %+v", st)
	}
	rate := []SweepWorker{{Sweep: &capacity.Sweep{LoadKind: capacity.RequestRate}}}
	if st := StepOf(rate, &record.Params{RequestRate: 2.5}); st.Load != 2.5 {
		t.Errorf("rate step load %v, want 2.5", st.Load)
	}
	if st := StepOf(ws, &record.Params{}); st.Load != 0 {
		t.Errorf("no max_concurrency: load %v, want 0", st.Load)
	}
}
