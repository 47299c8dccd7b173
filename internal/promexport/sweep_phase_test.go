package promexport_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/cli"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// TestSweepPhasesNameTheLoad: a sweep's live series are labelled by each
// step's load (phase="concurrency-1"), not by its place in the ladder
// (phase="step-1", which said nothing of the load: issue 29, item 11).
func TestSweepPhasesNameTheLoad(t *testing.T) {
	addr := freeAddr(t)
	srv := simtest.Start(t, simtest.Preset("fast"))
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- cli.Main(t.Context(), "test", []string{"sweep", "--base-url", srv.URL, "--model", "llmbench-sim",
			"--concurrency", "1,2", "--prompts-per-step", "4", "--step-warmup", "0", "--random-input-len", "16",
			"--random-output-len", "4", "--result-dir", t.TempDir(), "--disable-tqdm",
			"--metrics-addr", addr, "--metrics-linger", "10s"}, nil, &out, &errb)
	}()
	// Scrape until both steps' series are there (the exporter lingers
	// after the sweep for a last scrape), bounded.
	var body string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if strings.Contains(body, `phase="concurrency-2"`) {
				break
			}
		}
	}
	// The sweep ends after its linger; its output is read only then.
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("sweep exit %d\n%s", code, errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the sweep did not end")
	}
	for _, want := range []string{`phase="concurrency-1"`, `phase="concurrency-2"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no series with %s on /metrics\nstderr:\n%s", want, errb.String())
		}
	}
	if strings.Contains(body, `phase="step-`) {
		t.Errorf("a series is still labelled by the step's place in the ladder")
	}
}
