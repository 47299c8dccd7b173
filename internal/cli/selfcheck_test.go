package cli

import (
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// TestRunSelfCheck: the table ends with the self-check line, the result
// carries it under llmbench.self_check, --preconnect opens the pool before
// the run (so the run itself opens no connection), and --require-valid
// exits 1 exactly when the printed verdict is not valid.
func TestRunSelfCheck(t *testing.T) {
	srv := startSim(t, nil)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--num-prompts", "8", "--max-concurrency", "4",
		"--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm", "--preconnect", "--require-valid",
		"--save-result", "--result-dir", dir, "--result-filename", "r.json")
	line := regexp.MustCompile(`(?m)^Self-check: (valid|degraded|invalid)\b.*events/s, (\d+) connections opened, 4 before the run\)$`).FindStringSubmatch(out)
	if line == nil {
		t.Fatalf("no self-check line with 4 preconnected connections (exit %d):\n%s\n%s", code, out, errs)
	}
	if line[2] != "0" {
		t.Errorf("the run opened %s connections after preconnecting 4 for 4 streams", line[2])
	}
	if valid := line[1] == "valid"; valid != (code == 0) {
		t.Errorf("verdict %s but exit %d with --require-valid: %s", line[1], code, errs)
	}
	if code != 0 && !strings.Contains(errs, "--require-valid: the self-check says "+line[1]) {
		t.Errorf("exit %d without the --require-valid message: %s", code, errs)
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	sc, _ := res["llmbench"].(map[string]any)["self_check"].(map[string]any)
	if sc["verdict"] != line[1] || sc["preconnected"] != 4.0 || sc["events"] != 32.0 || sc["connections_opened"] != 0.0 {
		t.Errorf("self_check %v", sc)
	}
}

func TestRequireValid(t *testing.T) {
	t.Parallel()
	bad := &bench.Outcome{Verdict: selfcheck.Result{Verdict: selfcheck.Degraded, Reasons: []string{"dispatch lag p99 30 ms > 10 ms"}}}
	good := &bench.Outcome{Verdict: selfcheck.Result{Verdict: selfcheck.Valid}}
	var ee *ExitError
	if err := requireValid(true, bad); !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(ee.Msg, "degraded: dispatch lag") {
		t.Errorf("degraded with --require-valid: %v", err)
	}
	if err := requireValid(false, bad); err != nil {
		t.Errorf("without --require-valid: %v", err)
	}
	if err := requireValid(true, good); err != nil {
		t.Errorf("valid: %v", err)
	}
}

// TestRunFileLimit: more streams than the hard open-file limit allows stop
// the run before anything is sent, with the limit, the need and the fix
// (the base URL points nowhere: nothing may be sent).
func TestRunFileLimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max > 900_000 {
		t.Skipf("hard open-file limit %d: too high to exceed with --num-prompts (%v)", lim.Max, err)
	}
	n := int(lim.Max)
	code, out, errs := runCLI(t, "run", "--base-url", "http://127.0.0.1:1", "--num-prompts", strconv.Itoa(n),
		"--random-input-len", "4", "--random-output-len", "2", "--disable-tqdm")
	if code != 1 || !strings.Contains(errs, "RLIMIT_NOFILE") || !strings.Contains(errs, "ulimit -n") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("exit %d, want 1 and one line naming RLIMIT_NOFILE and ulimit -n:\n%s\n%s", code, out, errs)
	}
}
