package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
)

// TestRunKilledKeepsRecords: a run killed with SIGKILL mid-way leaves a
// records file from which `llmbench metrics` recovers every request that
// completed well before the kill (records are flushed at least every
// second; the margin below adds room for a busy machine), checked against
// the simulator's own log of the requests it finished.
func TestRunKilledKeepsRecords(t *testing.T) {
	t.Parallel()
	srv := startSim(t, func(c *sim.Config) {
		c.TTFT = 20 * time.Millisecond
		c.ITL = 10 * time.Millisecond
	})
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--base-url", srv.URL, "--model", "llmbench-sim",
		"--num-prompts", "400", "--request-rate", "20", "--random-input-len", "16", "--random-output-len", "10",
		"--request-id-prefix", "kill-", "--save-result", "--save-detailed", "--result-dir", dir,
		"--result-filename", "killed.json", "--disable-tqdm", "--num-warmups", "0")
	cmd.Args[0] = "llmbench" // testscript's TestMain runs Main for this name
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "killed.records.jsonl")
	// Kill once a few seconds of requests have finished.
	deadline := time.Now().Add(60 * time.Second)
	for countPrefixed(srv, "kill-") < 60 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the run did not get going: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	const margin = 1500 * time.Millisecond // FlushEvery plus room for a busy machine
	want := map[int]bool{}
	for _, tr := range srv.Server.Truth() {
		if i, ok := strings.CutPrefix(tr.RequestID, "kill-"); ok && tr.End.Before(killed.Add(-margin)) {
			n, _ := strconv.Atoi(i)
			want[n] = true
		}
	}
	p, recs, _, err := record.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the killed run's records: %v", err)
	}
	got := map[int]bool{}
	for _, r := range recs {
		got[r.Index] = true
	}
	for i := range want {
		if !got[i] {
			t.Errorf("request %d finished %v before the kill but is not in the records file", i, margin)
		}
	}
	if !p.Unfinished || !p.Interrupted || p.DurationS <= 0 {
		t.Errorf("params: unfinished %v, interrupted %v, duration %v", p.Unfinished, p.Interrupted, p.DurationS)
	}
	code, out, errs := runCLI(t, "metrics", path)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("Successful requests:                     %d", len(recs))) ||
		!strings.Contains(errs+out, "did not finish") {
		t.Errorf("metrics on the killed run: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("%d requests finished more than %v before the kill, %d recovered", len(want), margin, len(recs))
}

func countPrefixed(srv *sim.Running, prefix string) int {
	n := 0
	for _, tr := range srv.Server.Truth() {
		if strings.HasPrefix(tr.RequestID, prefix) {
			n++
		}
	}
	return n
}
