package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSavesQueueKeys: a run with --max-concurrency saves latencies and
// queue_times for every request even without --save-detailed, and the
// client-queue percentile metrics under vLLM's names and table titles;
// with --request-rate inf, e2el_including_client_queue is left out.
func TestRunSavesQueueKeys(t *testing.T) {
	srv := startSim(t, nil)
	for _, tc := range []struct {
		rate     string
		inclKeys bool
	}{
		{"200", true},
		{"inf", false},
	} {
		dir := t.TempDir()
		code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--num-prompts", "12", "--request-rate", tc.rate,
			"--max-concurrency", "2", "--random-input-len", "10", "--random-output-len", "4", "--disable-tqdm",
			"--percentile-metrics", "ttft,e2el,client_queue_time,e2el_including_client_queue", "--metric-percentiles", "50,99",
			"--save-result", "--result-dir", dir, "--result-filename", "r.json")
		if code != 0 {
			t.Fatalf("rate %s: exit %d\n%s\n%s", tc.rate, code, out, errs)
		}
		res := readResult(t, filepath.Join(dir, "r.json"))
		for _, k := range []string{"latencies", "queue_times"} {
			if l, ok := res[k].([]any); !ok || len(l) != 12 {
				t.Errorf("rate %s: %s = %v, want 12 values", tc.rate, k, res[k])
			}
		}
		if _, ok := res["ttfts"]; ok {
			t.Errorf("rate %s: ttfts saved without --save-detailed", tc.rate)
		}
		for _, k := range []string{"mean_client_queue_time_ms", "median_client_queue_time_ms", "std_client_queue_time_ms", "p50_client_queue_time_ms", "p99_client_queue_time_ms"} {
			if _, ok := res[k]; !ok {
				t.Errorf("rate %s: no %s", tc.rate, k)
			}
		}
		_, saved := res["p99_e2el_including_client_queue_ms"]
		printed := strings.Contains(out, "E2EL incl. Client Queue")
		if saved != tc.inclKeys || printed != tc.inclKeys {
			t.Errorf("rate %s: e2el_including_client_queue saved %v, printed %v; want %v", tc.rate, saved, printed, tc.inclKeys)
		}
		if !strings.Contains(out, "---------------Client-side Queueing---------------\nMean Client Queue Time (ms):") {
			t.Errorf("rate %s: no Client-side Queueing section:\n%s", tc.rate, out)
		}
	}
}
