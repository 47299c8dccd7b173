package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
)

// TestSimProxyUsageErrors: bad flags give one line on stderr and exit 2.
func TestSimProxyUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--listen", "0.0.0.0:0"}, "not loopback; pass --allow-remote"},
		{[]string{"sim", "--metrics-addr", "0.0.0.0:9465"}, "--metrics-addr: listen address"},
		{[]string{"sim", "--preset", "nope"}, `unknown preset "nope"`},
		{[]string{"sim", "--mode", "turbo"}, `mode "turbo"`},
		{[]string{"sim", "--fault-500", "0.7", "--fault-drop", "0.5"}, "add up to 1.2"},
		{[]string{"sim", "--part-size", "0"}, "part size"},
		{[]string{"sim", "--payload-format", "xml"}, "payload format"},
		{[]string{"sim", "--max-num-seqs", "0"}, "must be positive"},
		{[]string{"sim", "--tokenizer", "/nonexistent/tokenizer.json"}, "tokenizer"},
		{[]string{"sim", "--truth-log", "/nonexistent/truth.jsonl"}, "truth log: open /nonexistent/truth.jsonl"},
		{[]string{"proxy"}, "--upstream is required"},
		{[]string{"proxy", "--upstream", "localhost:8000"}, "want an http:// or https://"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1", "--listen", "10.0.0.1:80"}, "not loopback"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1", "--upstream-header", "nocolon"}, "Name: value"},
		// run's KEY=VALUE form by mistake: the error must not echo the token.
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1", "--upstream-header", "Authorization=Bearer sk-SECRET"}, `"Authorization ..." (value hidden)`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			code := Main(t.Context(), "test", tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 || strings.Contains(stderr.String(), "SECRET") {
				t.Errorf("exit %d, stderr %q; want 2 and %q on one line", code, stderr.String(), tc.want)
			}
		})
	}
}

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// runServing runs args in the background and returns the URL it prints
// and a channel with its exit code.
func runServing(t *testing.T, args ...string) (string, <-chan int) {
	t.Helper()
	line, code := runServingLine(t, args...)
	u := urlRE.FindString(line)
	if u == "" {
		t.Fatalf("no URL in %q", line)
	}
	return u, code
}

// runServingLine runs args in the background and returns the first line
// it prints and a channel with its exit code.
func runServingLine(t *testing.T, args ...string) (string, <-chan int) {
	t.Helper()
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		var stderr strings.Builder
		c := Main(context.Background(), "test", args, strings.NewReader(""), pw, &stderr)
		if stderr.Len() > 0 {
			t.Logf("stderr: %s", stderr.String())
		}
		pw.Close()
		code <- c
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return line, code
}

// TestSimMetricsAddr: --metrics-addr serves the simulator's /metrics on a
// second listener, counting what the API port served.
func TestSimMetricsAddr(t *testing.T) {
	t.Parallel()
	line, code := runServingLine(t, "sim", "--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
		"--mode", "fixed", "--ttft", "1ms", "--itl", "1ms", "--exit-after", "5s")
	urls := urlRE.FindAllString(line, -1)
	if len(urls) != 2 || !strings.Contains(line, urls[1]+"/metrics") {
		t.Fatalf("startup line %q: want the API URL and the metrics URL", line)
	}
	resp, err := http.Post(urls[0]+"/v1/completions", "application/json",
		strings.NewReader(`{"prompt":"x","max_tokens":3,"ignore_eos":true,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	mresp, err := http.Get(urls[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	for _, want := range []string{`vllm:generation_tokens_total{model_name="llmbench-sim"} 3`, `llmbench_sim_requests_total{model_name="llmbench-sim"} 1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s:\n%s", want, b)
		}
	}
	if c := <-code; c != 0 {
		t.Errorf("exit %d", c)
	}
}

// TestSimCommandServes: `llmbench sim` serves, writes the truth log and
// exits 0 after --exit-after.
func TestSimCommandServes(t *testing.T) {
	t.Parallel()
	truth := filepath.Join(t.TempDir(), "truth.jsonl")
	u, code := runServing(t, "sim", "--listen", "127.0.0.1:0", "--mode", "fixed", "--ttft", "1ms", "--itl", "1ms",
		"--exit-after", "3s", "--truth-log", truth)
	resp, err := http.Post(u+"/v1/completions", "application/json",
		strings.NewReader(`{"prompt":"x","max_tokens":3,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
		t.Errorf("stream %q", b)
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not exit after --exit-after")
	}
	log, err := os.ReadFile(truth)
	if err != nil || strings.Count(string(log), "\n") != 1 || !strings.Contains(string(log), `"endpoint":"completions"`) {
		t.Errorf("truth log %q (%v)", log, err)
	}
}

// TestProxyCommandServes: `llmbench proxy` re-wraps a simulator's stream as
// an AWS event stream.
func TestProxyCommandServes(t *testing.T) {
	t.Parallel()
	cfg := sim.DefaultConfig()
	cfg.Mode, cfg.TTFT, cfg.ITL = sim.ModeFixed, time.Millisecond, time.Millisecond
	up, err := sim.Start(t.Context(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Stop(context.Background())
	u, code := runServing(t, "proxy", "--upstream", up.URL, "--listen", "127.0.0.1:0", "--part-size", "7", "--exit-after", "3s")
	resp, err := http.Post(u+"/endpoints/ep/invocations-response-stream", "application/json",
		strings.NewReader(`{"prompt":"x","max_tokens":3,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.amazon.eventstream" || !strings.Contains(string(b), ":event-type") {
		t.Errorf("content type %q, body %q", ct, b[:min(len(b), 80)])
	}
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
}
