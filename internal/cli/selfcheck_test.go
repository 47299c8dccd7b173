package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/metrics"
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

// TestRunSelfCheckCountsConnections: without --preconnect, the run's own
// connections are counted: 4 streams over keep-alive open at most 4 (one
// fewer when the server probe's connection is reused), and not none.
func TestRunSelfCheckCountsConnections(t *testing.T) {
	srv := startSim(t, nil)
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--num-prompts", "8", "--max-concurrency", "4",
		"--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm")
	line := regexp.MustCompile(`(?m)^Self-check: .*events/s, (\d+) connections opened\)$`).FindStringSubmatch(out)
	if code != 0 || line == nil || line[1] < "1" || line[1] > "4" || len(line[1]) != 1 {
		t.Fatalf("exit %d, self-check %q, want 1 to 4 connections opened:\n%s\n%s", code, line, out, errs)
	}
}

// TestRequireValid: the exit policy of a run that succeeded exits 1 under
// --require-valid exactly when the self-check verdict is not valid.
func TestRequireValid(t *testing.T) {
	t.Parallel()
	bad := &bench.Outcome{Verdict: selfcheck.Result{Verdict: selfcheck.Degraded, Reasons: []string{"dispatch lag p99 30 ms > 10 ms"}}}
	good := &bench.Outcome{Verdict: selfcheck.Result{Verdict: selfcheck.Valid}}
	policy := func(on bool, o *bench.Outcome) error {
		opts := &runOptions{f: runFlags{requireValid: on}}
		return opts.exitPolicy(context.Background(), nil, o, &metrics.Summary{})
	}
	var ee *ExitError
	if err := policy(true, bad); !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(ee.Msg, "degraded: dispatch lag") {
		t.Errorf("degraded with --require-valid: %v", err)
	}
	if err := policy(false, bad); err != nil {
		t.Errorf("without --require-valid: %v", err)
	}
	if err := policy(true, good); err != nil {
		t.Errorf("valid: %v", err)
	}
}

// TestRunFileLimit: under a hard open-file limit too low for the streams,
// the run — or a sweep whose largest step is too many streams — stops
// before anything is sent, with the limit, the need and the fix on one
// line; under a low soft limit with room below the hard one it raises the
// soft limit and runs. The limits are set for a child process by sh's
// ulimit (the base URL of the refused cases points nowhere: nothing may be
// sent). A sweep used to go on and blame the server for the client's
// limit ("the server stopped answering": socket: too many open files).
func TestRunFileLimit(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	run := []string{"run", "--num-prompts", "600", "--random-input-len", "4", "--random-output-len", "2", "--disable-tqdm"}
	sweep := []string{"sweep", "--no-config", "--prompts-per-step", "8", "--step-warmup", "0", "--random-input-len", "4",
		"--random-output-len", "2", "--disable-tqdm", "--result-dir", t.TempDir()}
	tests := []struct {
		name, ulimit, url string
		args              []string
		code              int
		want              string
	}{
		{"hard limit too low", "ulimit -n 256", "http://127.0.0.1:1", run, 1, "ulimit -n"},
		{"soft limit raised to the hard one", "ulimit -Hn 4096; ulimit -Sn 256", srv.URL, run, 0, "Serving Benchmark Result"},
		{"sweep: the largest concurrency", "ulimit -n 256", "http://127.0.0.1:1", append(sweep, "--concurrency", "1,400"), 1, "ulimit -n"},
		{"sweep: the largest users", "ulimit -n 256", "http://127.0.0.1:1", append(sweep, "--users", "2,300"), 1, "ulimit -n"},
		{"sweep: rates under a cap", "ulimit -n 256", "http://127.0.0.1:1",
			append(sweep, "--request-rates", "1,2", "--max-concurrency", "400"), 1, "ulimit -n"},
		{"sweep: loads that fit", "ulimit -n 256", srv.URL, append(sweep, "--concurrency", "1,2"), 0, "Verdict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A link named llmbench: TestMain runs Main for that name.
			bin := filepath.Join(t.TempDir(), "llmbench")
			if err := os.Symlink(os.Args[0], bin); err != nil {
				t.Fatal(err)
			}
			script := tt.ulimit + `; exec "$0" "$@"`
			args := append([]string{"-c", script, bin}, tt.args...)
			args = append(args, "--base-url", tt.url, "--model", "llmbench-sim")
			cmd := exec.CommandContext(t.Context(), "/bin/sh", args...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			text := out.String() + errb.String()
			if code != tt.code || !strings.Contains(text, tt.want) {
				t.Errorf("exit %d, want %d and %q:\n%s", code, tt.code, tt.want, text)
			}
			if tt.code == 1 && (!strings.Contains(errb.String(), "RLIMIT_NOFILE") || strings.Count(strings.TrimSpace(errb.String()), "\n") > 0) {
				t.Errorf("want one line naming RLIMIT_NOFILE:\n%s", errb.String())
			}
		})
	}
}
