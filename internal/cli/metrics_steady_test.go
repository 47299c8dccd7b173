package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMetricsWritesSteadyState: llmbench metrics on the records of a
// closed-loop run (max_concurrency set, rate inf) writes the same
// steady_state object the run saved, byte for byte, at the same place
// (last of vLLM's keys, before llmbench), and prints the run's steady-state section under
// vLLM's table. --no-steady-state writes null, as run's flag does, and
// --extras=false leaves it out with the llmbench object (vllm bench
// serve's Python result has neither).
func TestMetricsWritesSteadyState(t *testing.T) {
	t.Parallel()
	srv := repeatSim(t)
	dir := t.TempDir()
	records := filepath.Join(dir, "r.records.jsonl")
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--max-concurrency", "8",
		"--num-prompts", "40", "--random-input-len", "8", "--random-output-len", "8", "--disable-tqdm",
		"--save-result", "--result-dir", dir, "--result-filename", "r.json", "--save-records", records)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	savedKeys, savedVals := rawKeys(t, saved)
	if bytes.Equal(savedVals["steady_state"], []byte("null")) || savedVals["steady_state"] == nil {
		t.Fatalf("the run saved steady_state %s; want an object at concurrency 8", savedVals["steady_state"])
	}
	code, js, errs := runCLI(t, "metrics", records, "--format", "json")
	if code != 0 {
		t.Fatalf("metrics: exit %d: %s", code, errs)
	}
	keys, vals := rawKeys(t, []byte(js))
	if !bytes.Equal(vals["steady_state"], savedVals["steady_state"]) {
		t.Errorf("metrics steady_state:\n%s\nthe run's:\n%s", vals["steady_state"], savedVals["steady_state"])
	}
	for _, k := range [][]string{keys, savedKeys} {
		if i := slices.Index(k, "steady_state"); i < 0 || k[i+1] != "llmbench" {
			t.Errorf("steady_state at %d of %q; want it just before llmbench", i, k)
		}
	}
	_, table, _ := runCLI(t, "metrics", records)
	if !strings.Contains(table, "============ Steady-State Metrics =============") || !strings.Contains(out, "Steady-State Metrics") {
		t.Errorf("no steady-state section in the metrics table:\n%s", table)
	}
	_, js, _ = runCLI(t, "metrics", records, "--format", "json", "--no-steady-state")
	if _, vals := rawKeys(t, []byte(js)); !bytes.Equal(vals["steady_state"], []byte("null")) {
		t.Errorf("--no-steady-state: steady_state %s, want null", vals["steady_state"])
	}
	_, js, _ = runCLI(t, "metrics", records, "--format", "json", "--extras=false")
	if keys, _ := rawKeys(t, []byte(js)); slices.Contains(keys, "steady_state") || slices.Contains(keys, "llmbench") {
		t.Errorf("--extras=false: keys %q; want neither steady_state nor llmbench", keys)
	}
	if code, _, errs := runCLI(t, "metrics", records, "--steady-state-threshold", "2"); code != 2 || !strings.Contains(errs, "--steady-state-threshold must be in (0.0, 1.0], got 2") {
		t.Errorf("--steady-state-threshold 2: exit %d, %q", code, errs)
	}
}
