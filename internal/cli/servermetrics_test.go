package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// slotServer is an OpenAI completions server, independent of the
// simulator, that streams to at most `slots` requests at once (the rest
// wait for a slot) and exposes what it does under vLLM's metric names.
type slotServer struct {
	slots            chan struct{}
	itl              time.Duration
	running, waiting atomic.Int64
	generated        atomic.Int64
}

func newSlotServer(t *testing.T, slots int, itl time.Duration) string {
	s := &slotServer{slots: make(chan struct{}, slots), itl: itl}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (s *slotServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" {
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} %d\n", s.running.Load())
		fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} %d\n", s.waiting.Load())
		fmt.Fprintf(w, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} %d\n", s.generated.Load())
		return
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	s.waiting.Add(1)
	select {
	case s.slots <- struct{}{}:
	case <-r.Context().Done():
		s.waiting.Add(-1)
		return
	}
	s.waiting.Add(-1)
	s.running.Add(1)
	defer func() { s.running.Add(-1); <-s.slots }()
	w.Header().Set("Content-Type", "text/event-stream")
	for i := range body.MaxTokens {
		time.Sleep(s.itl)
		fr := "null"
		if i == body.MaxTokens-1 {
			fr = `"length"`
		}
		s.generated.Add(1)
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":%s}]}\n\n", fr)
		w.(http.Flusher).Flush()
	}
	fmt.Fprintf(w, "data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", body.MaxTokens, 8+body.MaxTokens)
}

// serverSummary is a result's llmbench.server_metrics.summary.
func serverSummary(t *testing.T, res map[string]any) map[string]any {
	t.Helper()
	x, _ := res["llmbench"].(map[string]any)
	sm, _ := x["server_metrics"].(map[string]any)
	s, ok := sm["summary"].(map[string]any)
	if !ok {
		t.Fatalf("no llmbench.server_metrics.summary in the result: %v", x)
	}
	return s
}

// TestRunServerMetrics: a run at --max-concurrency 16 against a server
// that holds 4 streams at once saves what the server saw (running_max 4,
// waiting_max >= 8, its generation tokens equal to the client's output
// tokens, >= 3 scrapes), prints the Server Specifics section and the
// server's self-check line, and writes the summary into the records
// file's closing line.
func TestRunServerMetrics(t *testing.T) {
	t.Parallel()
	url := newSlotServer(t, 4, 10*time.Millisecond)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "run", "--base-url", url, "--model", "m", "--tokenizer", "builtin:gpt2",
		"--max-concurrency", "16", "--num-prompts", "64", "--random-input-len", "8", "--random-output-len", "16",
		"--server-metrics", "auto", "--server-metrics-interval", "250ms", "--disable-tqdm",
		"--save-result", "--result-dir", dir, "--result-filename", "r.json", "--save-records", filepath.Join(dir, "r.records.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	s := serverSummary(t, res)
	if s["running_max"] != 4.0 || s["waiting_max"].(float64) < 8 || s["scrapes"].(float64) < 3 || s["server"] != "vllm" {
		t.Errorf("summary %v: want running_max 4, waiting_max >= 8, >= 3 scrapes, server vllm", s)
	}
	if s["scrape_errors"] == 0.0 && s["generation_tokens"] != res["total_output_tokens"] {
		t.Errorf("generation_tokens %v, client's total_output_tokens %v", s["generation_tokens"], res["total_output_tokens"])
	}
	for _, want := range []string{"================ Server Specifics ================", "Running requests, max:                   4 ",
		"Self-check, server view: agrees with the client (generation tokens 1.00x"} {
		if s["scrape_errors"] == 0.0 && !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	sc := res["llmbench"].(map[string]any)["self_check"].(map[string]any)
	if notes, ok := sc["server_cross_check"].([]any); !ok || s["scrape_errors"] == 0.0 && len(notes) != 0 {
		t.Errorf("self_check.server_cross_check %v", sc["server_cross_check"])
	}
	fh, err := os.Open(filepath.Join(dir, "r.records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	ex, err := record.ReadEndExtras(fh)
	if err != nil || !strings.Contains(string(ex["server_metrics"]), `"running_max":4`) {
		t.Errorf("records end extras %s, %v", ex["server_metrics"], err)
	}
}

// hangingMetrics is a /metrics that accepts connections and never
// answers.
func hangingMetrics(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		close(done)
		for _, c := range held {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/metrics"
}

// TestServerMetricsHangingEndpoint: a /metrics that never answers
// leaves the run as it is without --server-metrics: the same requests
// succeed with the same tokens, in about the same time (a generous
// bound: the scrapes may add at most one timeout before the run's clock
// and one after it, and neither is in the duration), with one warning
// and the failures counted in scrape_errors.
func TestServerMetricsHangingEndpoint(t *testing.T) {
	t.Parallel()
	url := newSlotServer(t, 4, 5*time.Millisecond)
	hang := hangingMetrics(t)
	run := func(extra ...string) (map[string]any, string) {
		dir := t.TempDir()
		args := append([]string{"run", "--base-url", url, "--model", "m", "--tokenizer", "builtin:gpt2",
			"--max-concurrency", "8", "--num-prompts", "32", "--random-input-len", "8", "--random-output-len", "16",
			"--disable-tqdm", "--save-result", "--result-dir", dir, "--result-filename", "r.json"}, extra...)
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		return readResult(t, filepath.Join(dir, "r.json")), errs
	}
	plain, _ := run()
	with, errs := run("--server-metrics", hang, "--server-metrics-interval", "200ms")
	for _, k := range []string{"completed", "failed", "total_output_tokens", "total_input_tokens", "num_prompts"} {
		if plain[k] != with[k] {
			t.Errorf("%s: %v without --server-metrics, %v with a hanging one", k, plain[k], with[k])
		}
	}
	if a, b := plain["duration"].(float64), with["duration"].(float64); b > 3*a+2 {
		t.Errorf("duration %.3f s with a hanging /metrics, %.3f s without", b, a)
	}
	s := serverSummary(t, with)
	if s["scrapes"] != 0.0 || s["scrape_errors"].(float64) < 2 {
		t.Errorf("summary %v: want 0 scrapes, >= 2 scrape errors", s)
	}
	if n := strings.Count(errs, "Warning: server metrics:"); n != 1 || !strings.Contains(errs, "no answer within 200ms") {
		t.Errorf("%d warnings, want 1 saying no answer:\n%s", n, errs)
	}
}

// TestServerMetricsFlagErrors: the flags' usage errors, one line each.
func TestServerMetricsFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "sagemaker", "--endpoint-name", "e", "--region", "us-east-1", "--server-metrics", "auto"}, "--server-metrics reads a server's /metrics, which a SageMaker endpoint does not expose"},
		{[]string{"--backend", "sagemaker", "--endpoint-name", "e", "--region", "us-east-1", "--reset-prefix-cache"}, "--reset-prefix-cache needs the server's /reset_prefix_cache"},
		{[]string{"--server-metric", "foo"}, "--server-metric needs --server-metrics"},
		{[]string{"--server-metrics-interval", "2s"}, "--server-metrics-interval needs --server-metrics"},
		{[]string{"--server-metrics", "auto", "--server-metrics-interval", "0s"}, "--server-metrics-interval must be positive"},
		{[]string{"--server-metrics", "ftp://x/metrics"}, `--server-metrics: "ftp://x/metrics" is not an http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(t, append([]string{"run", "--model", "m", "--port", "1"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q\n%s", code, errs, tt.want, out)
			}
		})
	}
}
