package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/worker"
)

// TestMergeFourWorkers runs 4 worker processes against one simulator with
// a shared --start-at, merges their results, and checks (docs/distributed.md):
//   - structure: one run id and config hash (derived, not given); each
//     worker sent the requests of its residue class with their global
//     indices and intended offsets (the single-process schedule), and
//     began dispatch at or after --start-at;
//   - exactness: the merged result equals, key by key and digit by digit,
//     `llmbench metrics` over the workers' records concatenated here onto
//     the earliest worker's clock;
//   - ground truth: its request and token totals are the simulator's.
func TestMergeFourWorkers(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) {
		c.TTFT = 10 * time.Millisecond
		c.ITL = 2 * time.Millisecond
	})
	dir := t.TempDir()
	const workers, n = 4, 80
	startAt := time.Now().Add(4 * time.Second).UTC().Truncate(time.Millisecond)
	runWorkers(t, dir, srv.URL, workers, n, startAt)

	files, _ := filepath.Glob(filepath.Join(dir, "*-worker-*.records.jsonl"))
	if len(files) != workers {
		t.Fatalf("records files %v, want %d", files, workers)
	}
	concat, runID := concatWorkers(t, files, startAt, n)

	merged := filepath.Join(dir, "merged.json")
	args := []string{"merge"}
	for i := range workers { // results (JSON) in, their records files beside them are read
		args = append(args, filepath.Join(dir, fmt.Sprintf("%s-worker-%d.json", runID, i)))
	}
	if code, out, errs := runCLI(t, append(args, "-o", merged)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	code, want, errs := runCLI(t, "metrics", concat, "--format", "json")
	if code != 0 {
		t.Fatalf("metrics: exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	gotKeys, gotVals := rawKeys(t, got)
	wantKeys, wantVals := rawKeys(t, []byte(want))
	if i := slices.Index(gotKeys, "llmbench_merge"); i < 0 || i != len(gotKeys)-1 {
		t.Errorf("merged result keys %v: want llmbench_merge last", gotKeys)
	} else {
		gotKeys = gotKeys[:i]
	}
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("keys differ:\nmerge   %v\nmetrics %v", gotKeys, wantKeys)
	}
	for _, k := range wantKeys {
		if !bytes.Equal(gotVals[k], wantVals[k]) {
			t.Errorf("%s: merge %s, metrics %s", k, clip(gotVals[k]), clip(wantVals[k]))
		}
	}
	checkTruth(t, srv, runID, gotVals)
}

// runWorkers starts the worker processes (the test binary as llmbench)
// and waits for all of them.
func runWorkers(t *testing.T, dir, url string, workers, n int, startAt time.Time) {
	t.Helper()
	runWorkerProcs(t, workers, func(i int) []string {
		return []string{"run", "--no-config", "--base-url", url, "--model", "llmbench-sim",
			"--tokenizer", "builtin:gpt2", "--seed", "7", "--num-prompts", strconv.Itoa(n), "--request-rate", "40",
			"--max-concurrency", "8", "--random-input-len", "24", "--random-output-len", "12", "--num-warmups", "1",
			"--worker-index", strconv.Itoa(i), "--start-at", startAt.Format(time.RFC3339Nano),
			"--save-result", "--save-detailed", "--result-dir", dir, "--disable-tqdm"}
	})
}

// runWorkerProcs runs workers llmbench processes at once, worker i with
// args(i) and the worker count in its environment, and fails the test
// with a worker's output if it fails.
func runWorkerProcs(t *testing.T, workers int, args func(i int) []string) {
	t.Helper()
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, workers)
	errs := make([]error, workers)
	for i := range workers {
		cmd := exec.Command(os.Args[0], args(i)...)
		cmd.Args[0] = "llmbench" // testscript's TestMain runs Main for this name
		cmd.Env = append(os.Environ(), worker.EnvCount+"="+strconv.Itoa(workers), "HF_HUB_OFFLINE=1")
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		wg.Go(func() { errs[i] = cmd.Run() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v\n%s", i, err, outs[i].String())
		}
	}
}

// concatWorkers checks each worker's records and writes their union onto
// the earliest worker's clock (start and intended times moved by the
// difference of the anchors, duration to the latest end), returning the
// file and the run id.
func concatWorkers(t *testing.T, files []string, startAt time.Time, n int) (string, string) {
	t.Helper()
	plan, err := load.Schedule(n, load.Arrivals{Rate: 40, Burstiness: 1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	ws := readWorkerFiles(t, files)
	for _, w := range ws {
		h := w.h
		if h.Start.UnixNano < startAt.UnixNano() {
			t.Errorf("worker %d began dispatch %v before --start-at", h.Worker.Index, time.Duration(startAt.UnixNano()-h.Start.UnixNano))
		}
		for _, r := range w.recs {
			if r.Index%h.Worker.Count != h.Worker.Index || r.Worker != h.Worker.Index+1 || *r.IntendedTime != plan.Offsets[r.Index].Seconds() {
				t.Errorf("worker %d: record %d (worker %d) intended at %v, want the global offset %v",
					h.Worker.Index, r.Index, r.Worker, *r.IntendedTime, plan.Offsets[r.Index].Seconds())
			}
		}
		if h.Worker.RunID != ws[0].h.Worker.RunID || h.Worker.ConfigHash != ws[0].h.Worker.ConfigHash {
			t.Errorf("worker %d: run %s config %s; worker %d: %s %s", h.Worker.Index, h.Worker.RunID, h.Worker.ConfigHash,
				ws[0].h.Worker.Index, ws[0].h.Worker.RunID, ws[0].h.Worker.ConfigHash)
		}
	}
	path, all := writeUnion(t, ws, filepath.Dir(files[0]))
	for i, r := range all {
		if r.Index != i {
			t.Fatalf("the workers' records are not requests 0..%d once each (position %d holds %d)", n-1, i, r.Index)
		}
	}
	return path, ws[0].h.Worker.RunID
}

// workerFile is one worker's records file, read back.
type workerFile struct {
	h    record.Header
	p    record.Params
	recs []record.Record
}

// readWorkerFiles reads the workers' records files; each must carry a
// worker block and a wall-clock anchor.
func readWorkerFiles(t *testing.T, files []string) []workerFile {
	t.Helper()
	var ws []workerFile
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := record.ReadHeader(fh)
		fh.Close()
		if err != nil || h.Worker == nil || h.Start == nil {
			t.Fatalf("%s: header %+v, %v", f, h, err)
		}
		p, recs, _, err := record.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, workerFile{h, p, recs})
	}
	return ws
}

// writeUnion writes the workers' records, by index, onto the earliest
// worker's clock (what merge must equal), as a records file in dir with
// worker 0's params and the span of all; it returns the file and the
// records.
func writeUnion(t *testing.T, ws []workerFile, dir string) (string, []record.Record) {
	t.Helper()
	a0 := ws[0].h.Start.UnixNano
	for _, w := range ws {
		a0 = min(a0, w.h.Start.UnixNano)
	}
	var all []record.Record
	var params record.Params
	dur := 0.0
	for _, w := range ws {
		off := time.Duration(w.h.Start.UnixNano - a0).Seconds()
		dur = max(dur, off+w.p.DurationS)
		if w.h.Worker.Index == 0 {
			params = w.p
		}
		for _, r := range w.recs {
			r.StartTime += off
			if r.IntendedTime != nil {
				it := *r.IntendedTime + off
				r.IntendedTime = &it
			}
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b record.Record) int { return a.Index - b.Index })
	params.DurationS = dur
	var buf bytes.Buffer
	if err := record.WriteJSONLines(&buf, params, all); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "concatenated.records.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, all
}

// checkTruth compares the merged totals with what the simulator served to
// the run's requests (warm-ups carry no request id).
func checkTruth(t *testing.T, srv *sim.Running, runID string, vals map[string]json.RawMessage) {
	t.Helper()
	prefix := "bench-" + strings.TrimPrefix(runID, "run-") + "-"
	var reqs, in, out int
	for _, tr := range srv.Server.Truth() {
		if strings.HasPrefix(tr.RequestID, prefix) && tr.Status == 200 {
			reqs++
			in += tr.PromptTokens
			out += tr.CompletionTokens
		}
	}
	for key, want := range map[string]int{"completed": reqs, "total_input_tokens": in, "total_output_tokens": out} {
		if got := string(vals[key]); got != strconv.Itoa(want) {
			t.Errorf("%s: merged %s, simulator %d", key, got, want)
		}
	}
	if reqs != 80 {
		t.Errorf("the simulator served %d of the run's requests, want 80", reqs)
	}
}

// rawKeys splits a JSON object into its keys in order and their values'
// exact text.
func rawKeys(t *testing.T, b []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		vals[k.(string)] = v
	}
	return keys, vals
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// TestMergeRefusals: inputs that are not one complete run are refused
// with one line on stderr and exit code 2.
func TestMergeRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, runID string, index, count int) string {
		t.Helper()
		path := filepath.Join(dir, name)
		var buf bytes.Buffer
		h := record.Header{
			Params: record.Params{DurationS: 1},
			Start:  &record.Anchor{UnixNano: 1_700_000_000_000_000_000},
			Worker: &record.WorkerInfo{RunID: runID, ConfigHash: "c0ffee", Index: index, Count: count},
		}
		s, err := record.NewStream(&buf, h)
		if err != nil {
			t.Fatal(err)
		}
		it := 0.0
		if err := s.Add(&record.Record{Index: index, Success: true, TTFT: 0.1, Latency: 0.2, ITL: []float64{0.1}, IntendedTime: &it}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(&h.Params, 0); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a0, a1 := write("a0.records.jsonl", "run-a", 0, 2), write("a1.records.jsonl", "run-a", 1, 2)
	b1 := write("b1.records.jsonl", "run-b", 1, 2)
	summary := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(summary, []byte(`{"date": "20260101-000000", "completed": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a0copy := filepath.Join(dir, "copy-of-a0.records.jsonl")
	if b, err := os.ReadFile(a0); err != nil || os.WriteFile(a0copy, b, 0o600) != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single.records.jsonl")
	var buf bytes.Buffer
	if err := record.WriteJSONLines(&buf, record.Params{DurationS: 1}, []record.Record{{Success: true, TTFT: 0.1, Latency: 0.1}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(single, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why  string
		args []string
		want string
	}{
		{"a summary without per-request records", []string{a0, summary}, "summary without per-request records"},
		{"results of different runs", []string{a0, b1}, "results from different runs"},
		{"a missing worker", []string{a0}, "worker 1 of 0..1 missing"},
		{"a duplicate worker", []string{a0, a1, a0copy}, "worker 0 appears twice"},
		{"a single-process run", []string{a0, single}, "not a worker's records"},
	} {
		code, out, errs := runCLI(t, append([]string{"merge", "-o", filepath.Join(dir, "m.json")}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.why, code, out, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Error("a refused merge wrote its output")
	}
	if code, _, errs := runCLI(t, "merge", a0, a1, "-o", filepath.Join(dir, "ok.json")); code != 0 {
		t.Errorf("the complete set: exit %d: %s", code, errs)
	}
	// One file named twice is one worker: the same path again, a link to
	// it, or a result JSON beside its own records file (as "llmbench merge
	// w*/*" lists them).
	a0json, a0link := filepath.Join(dir, "a0.json"), filepath.Join(dir, "link-to-a0.records.jsonl")
	if err := os.WriteFile(a0json, []byte(`{"date": "20260101-000000", "completed": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a0, a0link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{a0, a1, a0}, {a0json, a0, a1}, {a0link, a1, a0}} {
		if code, out, errs := runCLI(t, append([]string{"merge"}, args...)...); code != 0 || !strings.Contains(out, "Successful requests:                     2") {
			t.Errorf("merge %v: exit %d: %s %s", args, code, out, errs)
		}
	}
	// A folder stands for the worker records files in it (named as workers
	// name them by default); one without any is refused.
	sub := filepath.Join(dir, "run1")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "merge", sub); code != 2 || !strings.Contains(errs, "holds no worker records") {
		t.Errorf("an empty folder: exit %d: %s", code, errs)
	}
	for i, f := range []string{a0, a1} {
		b, _ := os.ReadFile(f)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("run-a-worker-%d.records.jsonl", i)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := runCLI(t, "merge", sub); code != 0 || !strings.Contains(out, "Successful requests:                     2") {
		t.Errorf("a folder: exit %d: %s %s", code, out, errs)
	}
}

// TestMergeUsers: closed-loop workers split the users (worker i runs the
// users whose id is i modulo the count) and the request indices; merged,
// they are users 1..3 and requests 0..11 once each.
func TestMergeUsers(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	dir := t.TempDir()
	for i := range 2 {
		code, out, errs := runCLI(t, "run", "--no-config", "--base-url", srv.URL, "--model", "llmbench-sim", "--skip-tokenizer-init",
			"--users", "3", "--num-prompts", "12", "--random-input-len", "8", "--random-output-len", "4", "--num-warmups", "0",
			"--worker-count", "2", "--worker-index", strconv.Itoa(i), "--run-id", "users-test",
			"--save-records", filepath.Join(dir, fmt.Sprintf("w%d.records.jsonl", i)), "--disable-tqdm")
		if code != 0 {
			t.Fatalf("worker %d: exit %d\n%s\n%s", i, code, out, errs)
		}
	}
	merged := filepath.Join(dir, "merged.records.jsonl")
	if code, out, errs := runCLI(t, "merge", filepath.Join(dir, "w0.records.jsonl"), filepath.Join(dir, "w1.records.jsonl"), "--save-records", merged); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	_, recs, _, err := record.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	users := map[int]bool{}
	for i, r := range recs {
		if r.Index != i || (r.User-1)%2 != r.Worker-1 || r.Index%2 != r.Worker-1 {
			t.Errorf("record %d: index %d, user %d, worker %d", i, r.Index, r.User, r.Worker)
		}
		users[r.User] = true
	}
	if len(recs) != 12 || len(users) != 3 || !users[1] || !users[2] || !users[3] {
		t.Errorf("%d records from users %v; want 12 from users 1..3", len(recs), users)
	}
}
