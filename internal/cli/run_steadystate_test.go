package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/stats"
)

// steadyStateKeys are vLLM's Rust client's steady_state keys
// (src/metrics/steady_state.rs), in its struct order.
var (
	steadyStateKeys = []string{"window", "request_throughput", "input_throughput", "output_throughput",
		"total_token_throughput", "mean_ttft_ms", "median_ttft_ms", "percentiles_ttft_ms", "mean_tpot_ms",
		"median_tpot_ms", "p90_tpot_ms", "p99_tpot_ms"}
	steadyWindowKeys = []string{"start_s", "end_s", "duration_s", "target_concurrency", "threshold",
		"threshold_abs", "observed_peak", "requests_started_in_window", "requests_completed_in_window",
		"requests_total", "warning"}
)

// objectKeys are the keys of the JSON object data, in order.
func objectKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestRunSteadyState: a closed loop at --max-concurrency 8 and an
// infinite rate carries vLLM's Rust client's steady_state, every key in
// its order, threshold_abs 8 and floats written as 99.0; the table gets
// that client's section. --no-steady-state and a finite rate write null
// (as that client does: src/output/json.rs inserts the key always).
func TestRunSteadyState(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) {
		c.TTFT = 20 * time.Millisecond
		c.ITL = 2 * time.Millisecond
	})
	tests := []struct {
		name   string
		args   []string
		object bool
	}{
		{"closed loop at max concurrency 8", nil, true},
		{"--no-steady-state", []string{"--no-steady-state"}, false},
		{"finite rate: an open loop", []string{"--request-rate", "200"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"run", "--base-url", srv.URL, "--model", "llmbench-sim", "--max-concurrency", "8",
				"--num-prompts", "48", "--random-input-len", "8", "--random-output-len", "10", "--disable-tqdm",
				"--metric-percentiles", "50,99", "--save-result", "--result-dir", dir, "--result-filename", "r.json"}, tc.args...)
			code, out, errs := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			data, err := os.ReadFile(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatal(err)
			}
			var res map[string]json.RawMessage
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			raw, ok := res["steady_state"]
			if !ok {
				t.Fatal("no steady_state key")
			}
			keys := objectKeys(t, data)
			if i, j := slices.Index(keys, "steady_state"), slices.Index(keys, "llmbench"); i != j-1 || keys[i-1] != "p99_itl_ms" {
				t.Errorf("steady_state at %d, llmbench at %d: want it last of vLLM's keys (%q)", i, j, keys)
			}
			hasSection := strings.Contains(out, "============ Steady-State Metrics =============")
			if !tc.object {
				if string(raw) != "null" || hasSection {
					t.Errorf("steady_state = %s, section printed %v; want null and none", raw, hasSection)
				}
				return
			}
			if !hasSection || !strings.Contains(out, "Concurrency threshold:              >= 0.95 * 8 = 8\n") {
				t.Errorf("no steady-state section in:\n%s", out)
			}
			if got := objectKeys(t, raw); !slices.Equal(got, steadyStateKeys) {
				t.Errorf("steady_state keys %q, want %q", got, steadyStateKeys)
			}
			var ss struct {
				Window json.RawMessage
				P      [][2]float64 `json:"percentiles_ttft_ms"`
			}
			if err := json.Unmarshal(raw, &ss); err != nil {
				t.Fatal(err)
			}
			if got := objectKeys(t, ss.Window); !slices.Equal(got, steadyWindowKeys) {
				t.Errorf("window keys %q, want %q", got, steadyWindowKeys)
			}
			var w struct {
				TargetConcurrency int     `json:"target_concurrency"`
				Threshold         float64 `json:"threshold"`
				ThresholdAbs      int     `json:"threshold_abs"`
				ObservedPeak      int     `json:"observed_peak"`
				RequestsTotal     int     `json:"requests_total"`
			}
			if err := json.Unmarshal(ss.Window, &w); err != nil {
				t.Fatal(err)
			}
			if w.TargetConcurrency != 8 || w.Threshold != 0.95 || w.ThresholdAbs != 8 || w.ObservedPeak != 8 || w.RequestsTotal != 48 {
				t.Errorf("window = %+v, want target 8, threshold 0.95, threshold_abs 8, peak 8, 48 requests", w)
			}
			if len(ss.P) != 2 || ss.P[0][0] != 50 || ss.P[1][0] != 99 || !bytes.Contains(raw, []byte(`"percentiles_ttft_ms": [[50.0, `)) {
				t.Errorf("percentiles_ttft_ms = %v in %s; want [[50.0, v], [99.0, v]]", ss.P, raw)
			}
		})
	}
}

// TestRunSteadyStateFlags: the flags' bounds, with the Rust client's
// words, before anything is sent.
func TestRunSteadyStateFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--steady-state-threshold", "0"}, "--steady-state-threshold must be in (0.0, 1.0], got 0"},
		{[]string{"--steady-state-threshold", "1.5"}, "--steady-state-threshold must be in (0.0, 1.0], got 1.5"},
		{[]string{"--steady-state-min-window", "-1"}, "--steady-state-min-window must be >= 0, got -1"},
	}
	for _, tc := range tests {
		args := append([]string{"run", "--base-url", "http://127.0.0.1:1", "--model", "m", "--max-concurrency", "2"}, tc.args...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestMetricsRecomputesCI: llmbench metrics on a run's records gives
// the live run's llmbench.ci to the last bit (metrics are a pure function
// of the records), and with 400 requests the p99 interval exists.
func TestMetricsRecomputesCI(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	dir := t.TempDir()
	records := filepath.Join(dir, "r.jsonl")
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--max-concurrency", "16",
		"--num-prompts", "400", "--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm",
		"--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,99",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json", "--save-records", records)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	live, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	code, again, errs := runCLI(t, "metrics", records, "--format", "json")
	if code != 0 {
		t.Fatalf("metrics: exit %d\n%s", code, errs)
	}
	ciOf := func(data []byte) (string, map[string]any) {
		var res struct {
			LLMBench map[string]json.RawMessage `json:"llmbench"`
		}
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		var parsed map[string]any
		if err := json.Unmarshal(res.LLMBench["ci"], &parsed); err != nil {
			t.Fatal(err)
		}
		return string(res.LLMBench["ci"]), parsed
	}
	liveCI, parsed := ciOf(live)
	if got, _ := ciOf([]byte(again)); got != liveCI {
		t.Errorf("llmbench metrics ci:\n%s\nlive run ci:\n%s", got, liveCI)
	}
	// The saved p99 interval is the saved TTFTs, sorted, at the binomial
	// ranks.
	var detail struct {
		TTFTs []float64 `json:"ttfts"`
	}
	if err := json.Unmarshal(live, &detail); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Sorted(slices.Values(detail.TTFTs))
	lo, hi, ok := stats.PercentileRanks(len(sorted), 0.99, 0.95)
	ttft, _ := parsed["ttft_ms"].(map[string]any)
	p99, _ := ttft["p99"].(map[string]any)
	if !ok || len(sorted) != 400 || ttft["n"] != 400.0 || p99 == nil ||
		p99["low"] != sorted[lo]*1000 || p99["high"] != sorted[hi]*1000 {
		t.Errorf("ttft_ms = %v; want n 400 and p99 [%v, %v] (ranks %d, %d of %d)", ttft, sorted[lo]*1000, sorted[hi]*1000, lo, hi, len(sorted))
	}
	if !strings.Contains(out, " Confidence Intervals, 95% (llmbench) ") {
		t.Errorf("no confidence section in the run's output:\n%s", out)
	}
}
