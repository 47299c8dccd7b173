package merge

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// testRules are Rules with figures from metrics.Summarize (no steady
// state) and files written by atomicfile; written counts the writes.
func testRules(written *[]string) *Rules {
	return &Rules{
		Figures: func(p *record.Params, recs []record.Record) (*Figures, error) {
			mp, err := metrics.ParamsFrom(p, nil)
			if err != nil {
				return nil, err
			}
			s, err := metrics.Summarize(recs, mp)
			return &Figures{Summary: s}, err
		},
		WriteFile: func(path string, fill func(io.Writer) error) error {
			*written = append(*written, filepath.Base(path))
			return atomicfile.Write(path, 0o600, fill)
		},
		LateMarker: "late:",
	}
}

// TestRun: a run merge prints the notes and vLLM's table, writes the
// outputs asked for; what does not make one run is an InputError, the
// figures' own error comes back as it is.
func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, in := range []Input{worker(0, 2, 0, 1, 0, 2), worker(1, 2, 1000, 1, 1, 3)} {
		in.Params.Tokenizer = record.TokenizerNone
		writeWorker(t, dir, in)
	}
	out := t.TempDir()
	figuresFailed := errors.New("figures failed")
	tests := []struct {
		name    string
		args    []string
		o       Outputs
		figures error
		stdout  []string // substrings
		written []string
		err     string // "" = none; input errors start "input: "
	}{
		{"table only", []string{dir}, Outputs{}, nil, []string{"Successful requests:                     4"}, nil, ""},
		{"both outputs", []string{dir}, Outputs{Result: filepath.Join(out, "m.json"), Records: filepath.Join(out, "m.records.jsonl")}, nil,
			[]string{"Merged records saved to " + filepath.Join(out, "m.records.jsonl"), "Merged result saved to " + filepath.Join(out, "m.json")},
			[]string{"m.records.jsonl"}, ""},
		{"no worker records", []string{t.TempDir()}, Outputs{}, nil, nil, nil, "input: holds no worker records"},
		{"one worker twice", []string{filepath.Join(dir, "run-a-worker-0.records.jsonl"), filepath.Join(dir, "run-a-worker-0.records.jsonl"), filepath.Join(dir, "run-a-worker-1.records.jsonl")},
			Outputs{}, nil, []string{"Successful requests:                     4"}, nil, ""},
		{"a worker missing", []string{filepath.Join(dir, "run-a-worker-0.records.jsonl")}, Outputs{}, nil, nil, nil, "input: "},
		{"figures fail", []string{dir}, Outputs{}, figuresFailed, nil, nil, "figures failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var written []string
			r := testRules(&written)
			if tc.figures != nil {
				r.Figures = func(*record.Params, []record.Record) (*Figures, error) { return nil, tc.figures }
			}
			var stdout, stderr strings.Builder
			err := r.Run(tc.args, tc.o, &stdout, &stderr)
			var ie *InputError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Run: %v", err)
			case strings.HasPrefix(tc.err, "input: "):
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), strings.TrimPrefix(tc.err, "input: ")) {
					t.Errorf("Run: %v, want an InputError with %q", err, strings.TrimPrefix(tc.err, "input: "))
				}
				return
			case tc.err != "":
				if !errors.Is(err, tc.figures) || errors.As(err, &ie) {
					t.Errorf("Run: %v, want the figures' error as it is", err)
				}
				return
			}
			if !strings.Contains(stderr.String(), "Merged run run-a: 2 workers, 4 requests") {
				t.Errorf("stderr %q lacks the notes", stderr.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if strings.Join(written, ",") != strings.Join(tc.written, ",") {
				t.Errorf("written through WriteFile: %v, want %v", written, tc.written)
			}
			if tc.o.Result != "" {
				b, err := os.ReadFile(tc.o.Result)
				var obj map[string]any
				if err != nil || json.Unmarshal(b, &obj) != nil || obj["llmbench_merge"] == nil || obj["completed"] != 4.0 {
					t.Errorf("merged result %.200s (%v)", b, err)
				}
			}
		})
	}
}

// writeSweepWorker saves worker w's sweep of one step (concurrency 2)
// as a worker's sweep file with the step's records beside it.
func writeSweepWorker(t *testing.T, dir string, w int) string {
	t.Helper()
	in := worker(w, 2, int64(w)*1000, 1, w, w+2)
	two := 2
	in.Params.Tokenizer, in.Params.MaxConcurrency = record.TokenizerNone, &two
	info := *in.Header.Worker
	mp, err := metrics.ParamsFrom(&in.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(in.Records, mp)
	if err != nil {
		t.Fatal(err)
	}
	row := capacity.RowFrom(s, capacity.Step{Load: 2, Kind: capacity.Concurrency})
	sw := &capacity.Sweep{LoadKind: capacity.Concurrency, SLA: capacity.SLA{}, Steps: []capacity.Row{row},
		Notes: []string{"step 1 started 5ms late: raise it", "another note"}, Worker: &info}
	path := filepath.Join(dir, "sweep-r-worker-"+string(rune('0'+w))+".json")
	if err := atomicfile.Write(path, 0o600, func(wr io.Writer) error { return capacity.WriteJSON(wr, sw) }); err != nil {
		t.Fatal(err)
	}
	steps := StepDir(path)
	if err := os.Mkdir(steps, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := writeWorker(t, steps, in)
	if err := os.Rename(rec, filepath.Join(steps, "concurrency-2.records.jsonl")); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunSweeps: the workers' sweeps merge step by step into one sweep
// file, its CSV and the merged step's result, with the late notes
// carried; without -o only the table; --save-records is refused.
func TestRunSweeps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := []string{writeSweepWorker(t, dir, 1), writeSweepWorker(t, dir, 0)}
	var written []string
	r := testRules(&written)
	var stdout, stderr strings.Builder
	merged := filepath.Join(t.TempDir(), "sweep-merged.json")
	if err := r.Run([]string{dir}, Outputs{Result: merged}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := "Step concurrency-2: 2 workers, 4 requests;"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	if want := "Merged sweep saved to " + merged + " (rows: " + StepDir(merged) + ".csv; merged step results in " + StepDir(merged) + "/)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
	}
	if strings.Join(written, ",") != "sweep-merged.json,sweep-merged.csv" {
		t.Errorf("written through WriteFile: %v", written)
	}
	an, err := capacity.ReadSweep(merged)
	if err != nil {
		t.Fatal(err)
	}
	carried := strings.Count(strings.Join(an.Notes, "\n"), "late: raise it")
	if len(an.Steps) != 1 || an.Steps[0].Completed != 4 || !an.Worker.Merged || carried != 2 || slices.Contains(an.Notes, "another note") ||
		an.Steps[0].ResultFile != filepath.Join(StepDir(merged), "concurrency-2.json") {
		t.Errorf("merged sweep: steps %+v, worker %+v, notes %q", an.Steps, an.Worker, an.Notes)
	}
	if _, err := os.Stat(an.Steps[0].ResultFile); err != nil {
		t.Errorf("merged step result: %v", err)
	}

	written = nil
	if err := r.RunSweeps(files, "", io.Discard, io.Discard); err != nil || len(written) != 0 {
		t.Errorf("without output: %v, wrote %v", err, written)
	}
	var ie *InputError
	if err := r.Run(files, Outputs{Records: "x.records.jsonl"}, io.Discard, io.Discard); !errors.As(err, &ie) || !strings.Contains(err.Error(), "--save-records merges one run") {
		t.Errorf("--save-records with sweeps: %v", err)
	}
	if err := r.RunSweeps(files[:1], "", io.Discard, io.Discard); !errors.As(err, &ie) {
		t.Errorf("one worker of two: %v, want an InputError", err)
	}
}
