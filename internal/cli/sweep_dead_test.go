package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dyingServer streams short completions and goes away for good (closes
// its listener and every connection) once it has answered after
// requests: a server killed mid-sweep.
func dyingServer(t *testing.T, after int64) string {
	var n atomic.Int64
	var once sync.Once
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if n.Add(1) > after {
			once.Do(func() { go srv.Close() })
			panic(http.ErrAbortHandler)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range body.MaxTokens {
			time.Sleep(2 * time.Millisecond)
			fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":null}]}\n\n")
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", body.MaxTokens, 8+body.MaxTokens)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSweepServerDies: a sweep whose server dies mid-way exits 1, no step
// with more than --max-error-rate (1 % by default) failed passes the SLA,
// and the verdict says both (issue 29: "60339 failed, SLA pass",
// "meets the SLA at every load tested", exit 0).
func TestSweepServerDies(t *testing.T) {
	t.Parallel()
	url := dyingServer(t, 50)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "sweep", "--no-config", "--base-url", url, "--model", "m", "--tokenizer", "builtin:gpt2",
		"--concurrency", "2,4,8,16", "--prompts-per-step", "32", "--step-warmup", "0", "--sla", "p99_ttft_ms<5000",
		"--random-input-len", "8", "--random-output-len", "8", "--num-prompts", "8", "--result-dir", dir, "--disable-tqdm")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	s := readSweep(t, dir)
	failedSome := false
	for _, r := range s.Steps {
		if r.ErrorRate > 0.01 {
			failedSome = true
			if r.SLAPass == nil || *r.SLAPass {
				t.Errorf("step %v: error rate %.2f passes the SLA", r.Load, r.ErrorRate)
			}
		}
	}
	if !failedSome {
		t.Errorf("no step saw the failures:\n%s\n%s", out, errs)
	}
	for _, want := range []string{"the server stopped answering", "at most 1 % of its requests failed (--max-error-rate 0.01)"} {
		if !strings.Contains(s.Verdict, want) {
			t.Errorf("verdict lacks %q: %s", want, s.Verdict)
		}
	}
	if strings.Contains(s.Verdict, "0.00 tok/s") {
		t.Errorf("the verdict takes the dead step's zero throughput as the highest load's: %s", s.Verdict)
	}
	if !strings.Contains(errs, "the server stopped answering") {
		t.Errorf("no error line:\n%s", errs)
	}
}
