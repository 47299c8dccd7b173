package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
	"github.com/llmbench/llmbench/internal/tokenizer"
	"github.com/llmbench/llmbench/internal/tokenizer/tokenizertest"
)

// runCLI runs llmbench in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(t.Context(), "test", args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// startSim starts a fast fixed-mode simulator that keeps its ground truth.
func startSim(t *testing.T, mod func(*sim.Config)) *sim.Running {
	t.Helper()
	return simtest.Start(t, simtest.Fixed(2*time.Millisecond, time.Millisecond), simtest.KeepTruth(), simtest.With(mod))
}

// readResult loads a saved result JSON (one object).
func readResult(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// gpt2Path unpacks the committed GPT-2 tokenizer into a temp folder.
func gpt2Path(t *testing.T) string { return tokenizertest.Dir(t, tokenizertest.GPT2) }

func num(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Fatalf("result key %q = %v (%T), want a number", key, m[key], m[key])
	}
	return v
}

// TestRunTokenTotalsMatchServer: the totals llmbench reports are the
// server's own counts, for both APIs, and with the same tokenizer file on
// both sides the client's prompt lengths equal the server's.
func TestRunTokenTotalsMatchServer(t *testing.T) {
	tokDir := gpt2Path(t)
	tok, err := tokenizer.Load(t.Context(), tokDir, tokenizer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, backendName := range []string{"openai", "openai-chat"} {
		t.Run(backendName, func(t *testing.T) {
			srv := startSim(t, func(c *sim.Config) { c.Tokenizer = tok })
			dir := t.TempDir()
			code, out, errs := runCLI(t, "run", "--backend", backendName, "--base-url", srv.URL,
				"--model", "llmbench-sim", "--tokenizer", tokDir,
				"--num-prompts", "12", "--random-input-len", "40", "--random-output-len", "9",
				"--max-concurrency", "4", "--disable-tqdm",
				"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json")
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			res := readResult(t, filepath.Join(dir, "r.json"))
			var wantIn, wantOut int
			n := 0
			for _, tr := range srv.Server.Truth() {
				if tr.Endpoint != "completions" && tr.Endpoint != "chat" {
					continue
				}
				n++
				wantIn += tr.PromptTokens
				wantOut += tr.CompletionTokens
			}
			if n != 12 {
				t.Fatalf("server saw %d generation requests, want 12", n)
			}
			if got := int(num(t, res, "total_input_tokens")); got != wantIn {
				t.Errorf("total_input_tokens = %d, server counted %d", got, wantIn)
			}
			if got := int(num(t, res, "total_output_tokens")); got != wantOut {
				t.Errorf("total_output_tokens = %d, server counted %d", got, wantOut)
			}
			if backendName == "openai" {
				// Completions prompts are the dataset's text, re-encoded by
				// the client to exactly their target lengths (range ratio 0):
				// the server, with the same tokenizer file, must count the same.
				if want := 12 * 40; wantIn != want {
					t.Errorf("server counted %d prompt tokens, client built %d", wantIn, want)
				}
			}
			if !strings.Contains(out, "Output token count source:               server-usage") {
				t.Errorf("stream specifics should name server-usage:\n%s", out)
			}
		})
	}
}

// noUsageServer streams the GPT-2 tokens of text one per chunk, without a
// usage frame, like a server that ignores stream_options.
func noUsageServer(t *testing.T, chat bool, pieces []string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model","root":"m"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i, p := range pieces {
			fin := "null"
			if i == len(pieces)-1 {
				fin = `"length"`
			}
			pj, _ := json.Marshal(p)
			if chat {
				fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":%s}]}\n\n", pj, fin)
			} else {
				fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%s,\"finish_reason\":%s}]}\n\n", pj, fin)
			}
			fl.Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRunWithoutUsageFrame: with no usage frame the output count comes
// from the tokenizer (exactly the tokens the server sent), or is vLLM's
// fallback 1 per request with --skip-tokenizer-init; the source is shown.
func TestRunWithoutUsageFrame(t *testing.T) {
	tokDir := gpt2Path(t)
	tok, err := tokenizer.Load(t.Context(), tokDir, tokenizer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := " The quick brown fox jumps over the lazy dog, 42 times."
	ids := tok.Encode(text, false)
	var pieces []string
	for _, id := range ids {
		pieces = append(pieces, tok.Decode([]int{id}))
	}
	for _, chat := range []bool{false, true} {
		backendName, endpoint := "openai", "/v1/completions"
		if chat {
			backendName, endpoint = "openai-chat", "/v1/chat/completions"
		}
		t.Run(backendName, func(t *testing.T) {
			srv := noUsageServer(t, chat, pieces)
			dir := t.TempDir()
			code, out, errs := runCLI(t, "run", "--backend", backendName, "--base-url", srv.URL, "--endpoint", endpoint,
				"--model", "m", "--tokenizer", tokDir, "--num-prompts", "5", "--random-input-len", "16",
				"--random-output-len", "8", "--disable-tqdm", "--save-result", "--result-dir", dir, "--result-filename", "r.json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			res := readResult(t, filepath.Join(dir, "r.json"))
			if got, want := int(num(t, res, "total_output_tokens")), 5*len(ids); got != want {
				t.Errorf("total_output_tokens = %d, want %d (tokenizer count of what the server sent)", got, want)
			}
			if !strings.Contains(out, "Requests without usage frame:            5") ||
				!strings.Contains(out, "Output token count source:               tokenizer") {
				t.Errorf("specifics should report 5 streams without usage, counted by the tokenizer:\n%s", out)
			}

			code, out, errs = runCLI(t, "run", "--backend", backendName, "--base-url", srv.URL, "--endpoint", endpoint,
				"--model", "m", "--skip-tokenizer-init", "--num-prompts", "5", "--random-input-len", "16",
				"--random-output-len", "8", "--disable-tqdm", "--save-result", "--result-dir", dir, "--result-filename", "s.json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			res = readResult(t, filepath.Join(dir, "s.json"))
			if got := int(num(t, res, "total_output_tokens")); got != 5 {
				t.Errorf("with --skip-tokenizer-init total_output_tokens = %d, want 5 (vLLM's 1 per request)", got)
			}
			if res["tokenizer_id"] != nil {
				t.Errorf("tokenizer_id = %v, want null with --skip-tokenizer-init", res["tokenizer_id"])
			}
			if strings.Contains(out, "Total generated tokens") {
				t.Errorf("--skip-tokenizer-init drops the token lines, as vLLM does:\n%s", out)
			}
		})
	}
}

// TestRunSavedResultRoundTrips: llmbench metrics on the saved records
// reproduces the saved result exactly.
func TestRunSavedResultRoundTrips(t *testing.T) {
	srv := startSim(t, nil)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--num-prompts", "15", "--request-rate", "200",
		"--burstiness", "0.5", "--max-concurrency", "3", "--random-input-len", "20", "--random-output-len", "6",
		"--random-range-ratio", "0.5", "--goodput", "ttft:50", "tpot:20", "--metric-percentiles", "50,90,99.9",
		"--percentile-metrics", "ttft,tpot,itl,e2el", "--disable-tqdm",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "run.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	saved := readResult(t, filepath.Join(dir, "run.json"))
	// The self-check measured the client while it ran; records do not
	// carry it, so a recomputation cannot have it (docs/fidelity.md).
	x := saved["llmbench"].(map[string]any)
	if sc, ok := x["self_check"].(map[string]any); !ok || sc["verdict"] == nil {
		t.Errorf("saved result has no llmbench.self_check verdict: %v", x["self_check"])
	}
	delete(x, "self_check")
	// llmbench metrics writes steady_state as run does: this open-loop
	// run's is null in both.
	if v, ok := saved["steady_state"]; !ok || v != nil {
		t.Errorf("steady_state = %v (present %v), want null for a finite rate", v, ok)
	}
	code, js, errs := runCLI(t, "metrics", filepath.Join(dir, "run.records.jsonl"), "--format", "json")
	if code != 0 {
		t.Fatalf("metrics exit %d: %s", code, errs)
	}
	var again map[string]any
	if err := json.Unmarshal([]byte(js), &again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(saved, again); diff != "" {
		t.Errorf("llmbench metrics on the saved records differs from the saved result (-saved +recomputed):\n%s", diff)
	}
	_, table, _ := runCLI(t, "metrics", filepath.Join(dir, "run.records.jsonl"))
	if !strings.Contains(out, table[:strings.Index(table, "==================================================\n")+51]) {
		t.Errorf("the recomputed table differs from the printed one:\nrun:\n%s\nmetrics:\n%s", out, table)
	}
}

// TestRunFaultsAreClassified: every simulator fault lands in its error
// class and no request is lost (records = requests sent).
func TestRunFaultsAreClassified(t *testing.T) {
	tests := []struct {
		name  string
		fault func(*sim.Faults)
		class string
		extra []string
	}{
		{"http 500", func(f *sim.Faults) { f.HTTP500Rate = 1 }, record.ErrHTTP5xx, nil},
		{"http 429", func(f *sim.Faults) { f.HTTP429Rate = 1 }, record.ErrHTTP429, nil},
		{"503 loading", func(f *sim.Faults) { f.Loading503Rate = 1 }, record.ErrHTTP5xx, nil},
		{"dropped mid-stream", func(f *sim.Faults) { f.DropRate = 1 }, record.ErrStreamTruncated, nil},
		{"malformed chunk", func(f *sim.Faults) { f.MalformedRate = 1 }, record.ErrMalformedStream, nil},
		{"stall past the deadline", func(f *sim.Faults) { f.StallRate = 1; f.StallFor = 3 * time.Second }, record.ErrTimeout,
			[]string{"--request-timeout", "300ms"}},
		{"slow first byte past the deadline", func(f *sim.Faults) { f.SlowFirstByteRate = 1; f.SlowFirstByteFor = 3 * time.Second }, record.ErrTimeout,
			[]string{"--request-timeout", "300ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startSim(t, func(c *sim.Config) { tt.fault(&c.Faults) })
			rpath := filepath.Join(t.TempDir(), "recs.jsonl")
			args := []string{"run", "--base-url", srv.URL, "--model", "llmbench-sim", "--num-prompts", "6",
				"--max-concurrency", "3", "--random-input-len", "10", "--random-output-len", "8",
				"--disable-tqdm", "--save-records", rpath}
			code, out, errs := runCLI(t, append(args, tt.extra...)...)
			if code != 1 || !strings.Contains(errs, "no request succeeded (6 of 6 failed; first error: ") {
				t.Fatalf("a run whose requests all fail completes, then exits 1 saying so; got %d\n%s\n%s", code, out, errs)
			}
			_, recs, _, err := record.ReadFile(rpath)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 6 {
				t.Fatalf("%d records, want 6 (one per request sent)", len(recs))
			}
			for _, r := range recs {
				if r.Success || r.ErrorClass != tt.class {
					t.Errorf("request %d: success=%v class=%q (%s), want failure of class %q", r.Index, r.Success, r.ErrorClass, r.Error, tt.class)
				}
			}
			if !strings.Contains(out, "Failed requests:                         6") ||
				!strings.Contains(out, tt.class) {
				t.Errorf("table and error breakdown should show 6 failures of %s:\n%s", tt.class, out)
			}
		})
	}
}

// TestRunMaxErrorRate: the gate exits 1 above the rate and 0 at or below.
func TestRunMaxErrorRate(t *testing.T) {
	srv := startSim(t, func(c *sim.Config) { c.Faults.HTTP500Rate = 0.5; c.Seed = 7 })
	args := []string{"run", "--base-url", srv.URL, "--num-prompts", "20", "--random-input-len", "10",
		"--random-output-len", "4", "--disable-tqdm"}
	code, _, errs := runCLI(t, append(args, "--max-error-rate", "0.05")...)
	if code != 1 || !strings.Contains(errs, "exceeds --max-error-rate") {
		t.Errorf("exit %d, stderr %q; want 1 with the reason", code, errs)
	}
	code, _, errs = runCLI(t, append(args, "--max-error-rate", "1")...)
	if code != 0 {
		t.Errorf("exit %d with --max-error-rate 1: %s", code, errs)
	}
}

// TestRunInterruptSavesPartialResult: cancelling mid-run keeps what was
// measured, marks the saved result interrupted and exits non-zero.
func TestRunInterruptSavesPartialResult(t *testing.T) {
	srv := startSim(t, func(c *sim.Config) { c.ITL = 20 * time.Millisecond })
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	var out, errb bytes.Buffer
	var wg sync.WaitGroup
	var code int
	wg.Go(func() {
		code = Main(ctx, "test", []string{"run", "--base-url", srv.URL, "--num-prompts", "50", "--request-rate", "20",
			"--random-input-len", "10", "--random-output-len", "10", "--disable-tqdm",
			"--save-result", "--result-dir", dir, "--result-filename", "p.json"}, strings.NewReader(""), &out, &errb)
	})
	time.Sleep(700 * time.Millisecond)
	cancel()
	wg.Wait()
	if code != 130 {
		t.Errorf("exit %d, want 130 for an interrupted run\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "Note: interrupted (Ctrl-C): the figures above cover the ") {
		t.Errorf("stdout does not say the table is partial:\n%s", out.String())
	}
	res := readResult(t, filepath.Join(dir, "p.json"))
	ext, _ := res["llmbench"].(map[string]any)
	if ext == nil || ext["interrupted"] != true {
		t.Errorf("saved result should carry llmbench.interrupted = true, got %v", res["llmbench"])
	}
	done := int(num(t, res, "completed")) + int(num(t, res, "failed"))
	if done == 0 || done >= 50 {
		t.Errorf("completed+failed = %d, want some but not all of 50", done)
	}
}

// TestRunTokenizerModeWarns: vLLM's --tokenizer-mode is accepted, but a
// mode other than auto/hf says that counts come from tokenizer.json.
func TestRunTokenizerModeWarns(t *testing.T) {
	srv := startSim(t, nil)
	for _, tt := range []struct {
		mode string
		warn bool
	}{{"mistral", true}, {"hf", false}} {
		code, out, errs := runCLI(t, "run", "--no-config", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", gpt2Path(t),
			"--tokenizer-mode", tt.mode, "--num-prompts", "1", "--random-input-len", "4", "--random-output-len", "2", "--disable-tqdm")
		if code != 0 || strings.Contains(errs, "--tokenizer-mode") != tt.warn {
			t.Errorf("--tokenizer-mode %s: exit %d, stderr %q; want a warning: %v\n%s", tt.mode, code, errs, tt.warn, out)
		}
	}
}

// TestRunBadInput: flag mistakes are one-line errors with exit code 2.
func TestRunBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "tgi"}, "--backend"},
		{[]string{"--max-concurrency", "0"}, "--max-concurrency must be positive"},
		{[]string{"--request-rate", "-1"}, "--request-rate"},
		{[]string{"--goodput", "ttfb:10"}, "ttfb"},
		{[]string{"--metric-percentiles", "101"}, "101"},
		{[]string{"--percentile-metrics", "ttft,foo"}, "foo"},
		{[]string{"--extra-body", "[1]"}, "--extra-body"},
		{[]string{"--extra-body", `{"a":1}]`}, "--extra-body"},
		{[]string{"--header", "novalue"}, "--header"},
		{[]string{"--ramp-up-strategy", "linear"}, "ramp-up"},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--request-rate", "3"}, "do not specify --request-rate"},
		{[]string{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "5"}, "start RPS cannot be 0"},
		{[]string{"--seed", "-1"}, "seed must be between"},
		{[]string{"--backend", "sagemaker"}, "--endpoint-name"},
		{[]string{"--base-url", "http://127.0.0.1:1", "--model", "m", "--tokenizer", "/nonexistent/tok"}, "--tokenizer /nonexistent/tok"},
		{[]string{"--num-prompts", "99999999999"}, "--num-prompts must be in 1..1000000"}, // was an out-of-memory crash
		{[]string{"--label", "team/a", "--save-result"}, "--label"},
		// A result folder that cannot exist fails before the run, not after it.
		{[]string{"--save-result", "--result-dir", "/dev/null/results", "--base-url", "http://127.0.0.1:1", "--model", "m"}, "cannot create the folder"},
		{[]string{"--save-records", "/dev/null/r.jsonl", "--base-url", "http://127.0.0.1:1", "--model", "m"}, "cannot create the folder"},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", "/nonexistent/x.json", "--base-url", "http://127.0.0.1:1", "--model", "m", "--skip-tokenizer-init"}, "/nonexistent/x.json"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, append([]string{"run"}, tt.args...)...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("run %q: exit %d, stderr %q; want exit 2 and one line mentioning %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestRunBadHeaderHidesValue: a malformed --header is reported without
// its value, which is usually the credential (curl's "Name: value" form,
// or the bare token).
func TestRunBadHeaderHidesValue(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"Authorization: Bearer sk-SECRET", "sk-SECRET", "X-Api-Key:sk-SECRET-with-a-long-tail"} {
		code, out, errs := runCLI(t, "run", "--no-config", "--header", h)
		if code != 2 || !strings.Contains(errs, "--header") || strings.Contains(out+errs, "SECRET") {
			t.Errorf("--header %q: exit %d, stderr %q; want exit 2, a --header error, no value", h, code, errs)
		}
	}
}

// TestRunHFDatasetFromCache: --dataset-name hf reads a dataset from the
// Hugging Face cache named by the environment, offline.
func TestRunHFDatasetFromCache(t *testing.T) {
	cache := t.TempDir()
	sha := strings.Repeat("1f", 20)
	root := filepath.Join(cache, "datasets--acme--questions")
	snap := filepath.Join(root, "snapshots", sha, "data")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "refs", "main"), []byte(sha), 0o644); err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder
	for i := range 7 {
		fmt.Fprintf(&rows, "{\"prompt\": \"Question number %d: why is the sky blue at noon?\"}\n", i)
	}
	if err := os.WriteFile(filepath.Join(snap, "train-00000-of-00001.jsonl"), []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HUB_OFFLINE", "1")
	srv := startSim(t, nil)
	recs, out := runRecords(t, "--base-url", srv.URL, "--model", "llmbench-sim", "--dataset-name", "hf",
		"--dataset-path", "acme/questions", "--num-prompts", "7", "--hf-output-len", "5", "--no-oversample")
	if len(recs) != 7 {
		t.Fatalf("%d records, want 7\n%s", len(recs), out)
	}
	seen := map[string]bool{}
	for _, tr := range srv.Server.Truth() {
		if tr.Endpoint == "completions" {
			seen[tr.RequestID] = true
		}
	}
	for _, r := range recs {
		if !r.Success || r.ExpectedOutputLen != 5 {
			t.Errorf("request %d: success %v, max_tokens %d (want 5): %s", r.Index, r.Success, r.ExpectedOutputLen, r.Error)
		}
	}
	if len(seen) != 7 {
		t.Errorf("server saw %d distinct requests, want 7", len(seen))
	}
}

// TestDemo: the first command a new user runs works with nothing else
// installed, and prints vLLM's table plus the pointer to a real server.
func TestDemo(t *testing.T) {
	code, out, errs := runCLI(t, "demo", "--sim-preset", "fast", "--num-prompts", "6", "--random-output-len", "16", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"============ Serving Benchmark Result ============",
		"Successful requests:                     6         ",
		"Maximum request concurrency:             4         ",
		"P95 TTFT (ms):",
		"Warmup run completed.",
		"llmbench run --base-url",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestRunTokenizerMismatch: a client tokenizer that disagrees with the
// server's /tokenize is reported, and --strict-tokens refuses to run.
func TestRunTokenizerMismatch(t *testing.T) {
	srv := startSim(t, nil) // counts words, not GPT-2 tokens
	args := []string{"run", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", gpt2Path(t),
		"--num-prompts", "4", "--random-input-len", "30", "--random-output-len", "4", "--disable-tqdm"}
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(errs, "tokenizer mismatch") {
		t.Errorf("exit %d; stderr should warn of the mismatch:\n%s\n%s", code, errs, out)
	}
	code, _, errs = runCLI(t, append(args, "--strict-tokens")...)
	if code != 1 || !strings.Contains(errs, "--strict-tokens") {
		t.Errorf("--strict-tokens: exit %d, stderr %q; want 1", code, errs)
	}
	// Same tokenizer on both sides: no warning.
	tok, err := tokenizer.Load(t.Context(), tokenizer.BuiltinGPT2, tokenizer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := startSim(t, func(c *sim.Config) { c.Tokenizer = tok })
	code, _, errs = runCLI(t, "run", "--base-url", srv2.URL, "--model", "llmbench-sim", "--tokenizer", tokenizer.BuiltinGPT2,
		"--num-prompts", "4", "--random-input-len", "30", "--random-output-len", "4", "--disable-tqdm", "--strict-tokens")
	if code != 0 || strings.Contains(errs, "mismatch") {
		t.Errorf("matching tokenizers: exit %d, stderr %q", code, errs)
	}
}

// TestRunTokenizeCarriesCredentials: the /tokenize comparison sends the
// same Authorization and --header values as the benchmark's requests.
func TestRunTokenizeCarriesCredentials(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-key")
	var tokenizeAuth, tokenizeTeam atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tokenize":
			tokenizeAuth.Store(r.Header.Get("Authorization"))
			tokenizeTeam.Store(r.Header.Get("X-Team"))
			fmt.Fprint(w, `{"tokens":[1,2,3],"count":3}`)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"hi\",\"finish_reason\":\"length\"}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "m", "--tokenizer", tokenizer.BuiltinGPT2,
		"--header", "X-Team=blue", "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "1", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if tokenizeAuth.Load() != "Bearer sk-test-key" || tokenizeTeam.Load() != "blue" {
		t.Errorf("/tokenize got Authorization %q, X-Team %q", tokenizeAuth.Load(), tokenizeTeam.Load())
	}
	if strings.Contains(out+errs, "sk-test-key") {
		t.Error("the API key was printed")
	}
}
