package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunFailsFast: a misconfigured run says what is wrong in one line
// and exits 1 without sending its whole schedule.
func TestRunFailsFast(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"nothing listens on the port: fails before building prompts",
			[]string{"--base-url", closed}, []string{"cannot connect to " + closed, "connection refused", "--base-url"}},
		{"a mistyped endpoint: stops after the first failures, naming the URL",
			[]string{"--base-url", srv.URL, "--endpoint", "/vl/completions"},
			[]string{"stopped early: the first 5 requests all failed (http_4xx)", "HTTP 404 Not Found from " + srv.URL + "/vl/completions",
				srv.URL + "/vl/completions does not exist", "--endpoint"}},
		{"a base URL ending in /v1",
			[]string{"--base-url", srv.URL + "/v1"}, []string{srv.URL + "/v1/v1/completions does not exist", "does not end in /v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 40 requests at 4 req/s: 10 s if the whole schedule were sent.
			args := append([]string{"run", "--model", "llmbench-sim", "--num-prompts", "40", "--request-rate", "4",
				"--random-input-len", "8", "--random-output-len", "4", "--tokenizer", "builtin:gpt2", "--disable-tqdm"}, tt.args...)
			began := time.Now()
			code, out, errs := runCLI(t, args...)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s\n%s", code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if strings.Contains(out, "Serving Benchmark Result") {
				t.Errorf("a misconfigured run printed a result table:\n%s", out)
			}
			t.Logf("stopped after %v", time.Since(began).Round(time.Millisecond))
		})
	}
	if n := countPrefixed(srv, ""); n > 2*40 {
		t.Errorf("the simulator saw %d requests", n)
	}
}

// TestRunInterruptNamesCanceled: requests the interrupt cancels are
// reported as such, not as a misconfiguration.
func TestRunInterruptNamesCanceled(t *testing.T) {
	t.Parallel()
	var arrived atomic.Int32
	all := make(chan struct{})
	// A server that starts every stream and never ends it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":null}]}\n\n")
		w.(http.Flusher).Flush()
		if arrived.Add(1) == 4 {
			close(all)
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	var out, errb bytes.Buffer
	var wg sync.WaitGroup
	var code int
	wg.Go(func() {
		code = Main(ctx, "test", []string{"run", "--base-url", srv.URL, "--model", "m", "--num-prompts", "4",
			"--random-input-len", "8", "--random-output-len", "20", "--skip-tokenizer-init", "--disable-tqdm"}, strings.NewReader(""), &out, &errb)
	})
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Fatal("the requests never arrived")
	}
	cancel()
	wg.Wait()
	if code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	text := out.String() + errb.String()
	if !strings.Contains(text, "Interrupted: 4 requests in flight were canceled") || strings.Contains(text, "misconfiguration") ||
		strings.Contains(text, "Error 0:") {
		t.Errorf("output:\n%s", text)
	}
}
