package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeCommand is one command from the README's indented code blocks.
type readmeCommand struct {
	line       int
	env        []string // VAR=value prefixes
	args       []string // after "llmbench"
	background bool     // ends in "&"
}

// notLlmbench are the README's commands of other tools; the test runs
// every llmbench command and names these as not run.
var notLlmbench = []string{"go test", "prometheus ", "jq ", "curl ", "docker ", "kubectl ", "helm "}

// TestREADMECommands runs every llmbench command the README shows, as
// written, in order, in a scratch copy of the files they name (so nothing
// is left in the repository): background ones ("... &", the simulator and
// the SageMaker emulator) first, then the rest. Commands with --fail-if may
// exit 1 (a crossed bound is the gate working); every other one must exit
// 0. The course commands reach the emulator through
// AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME with dummy keys, as
// courses/classification/README.md says.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README command (about two minutes); not in -short")
	}
	// Parallel: its commands run in child processes in a scratch folder
	// and mostly wait on their own schedules (a 20 s users run, 5 s at
	// 20 req/s), so the package's other parallel tests fit beside it
	// instead of after it (issue 29, item 12). It shares no state with
	// them: no Chdir, no Setenv, and the fixed ports are its own.
	t.Parallel()
	lockREADMEPorts(t)
	for _, port := range []string{"8000", "8080", "9464"} {
		if ln, err := net.Listen("tcp", "127.0.0.1:"+port); err != nil {
			t.Fatalf("the README's commands use 127.0.0.1:%s, which is taken: %v", port, err)
		} else {
			ln.Close()
		}
	}
	cmds := readmeCommands(t, "../../README.md")
	dir := readmeWorkspace(t)
	env := append(os.Environ(), "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME=http://127.0.0.1:8080", "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent")
	for _, c := range cmds {
		if c.background {
			startBackground(t, dir, env, c)
		}
	}
	for _, c := range cmds {
		if c.background {
			continue
		}
		t.Run(fmt.Sprintf("line %d", c.line), func(t *testing.T) {
			code, out := runReadme(t, dir, env, c)
			ok := code == 0 || (code == 1 && slicesContains(c.args, "--fail-if") && strings.Contains(out, "fail-if"))
			if !ok {
				t.Errorf("README line %d: llmbench %s: exit %d\n%s", c.line, strings.Join(c.args, " "), code, out)
			}
			checkReadmeResult(t, dir, c)
		})
	}
	// Nothing saved unasked: from the clone root no config file makes
	// runs save to bench_results/ (issue 29: README example 1 took the
	// example config.yaml's cap, lengths and save_results).
	if _, err := os.Stat(filepath.Join(dir, "bench_results")); err == nil {
		t.Error("the README's commands saved results nobody asked for in bench_results/")
	}
}

// checkReadmeResult checks that a run command whose result was saved
// under a fixed name measured the workload its flags (and comment) say:
// the rate, the prompt count and the concurrency cap, none of them
// changed by a config file.
func checkReadmeResult(t *testing.T, dir string, c readmeCommand) {
	if len(c.args) == 0 || c.args[0] != "run" {
		return
	}
	flag := func(name string) string {
		for i, a := range c.args {
			if a == name && i+1 < len(c.args) {
				return c.args[i+1]
			}
		}
		return ""
	}
	name := flag("--result-filename")
	if name == "" {
		return
	}
	res := readResult(t, filepath.Join(dir, flag("--result-dir"), name))
	for key, want := range map[string]string{"request_rate": flag("--request-rate"), "num_prompts": flag("--num-prompts"), "max_concurrency": flag("--max-concurrency")} {
		got := fmt.Sprint(res[key])
		switch {
		case want == "" && key == "request_rate":
			want = "inf"
		case want == "" && key == "max_concurrency":
			want = "<nil>"
		case want == "":
			continue
		}
		if got != want && !(want == "inf" && strings.Contains(strings.ToLower(got), "inf")) {
			t.Errorf("README line %d: %s is %s in the saved result, want %s (as the command says)", c.line, key, got, want)
		}
	}
}

func slicesContains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// readmeCommands extracts the llmbench commands of the README's indented
// code blocks, joining "\" continuations and dropping "# comments".
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	sc := bufio.NewScanner(f)
	n, start := 0, 0
	var pending string
	for sc.Scan() {
		n++
		line := sc.Text()
		if pending == "" && !strings.HasPrefix(line, "    ") {
			continue
		}
		if pending == "" {
			start = n
		}
		text := strings.TrimSpace(line)
		if cont, ok := strings.CutSuffix(text, "\\"); ok {
			pending += cont + " "
			continue
		}
		full := pending + text
		pending = ""
		if c, ok := parseReadmeCommand(t, start, full); ok {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 15 {
		t.Fatalf("found only %d llmbench commands in %s", len(cmds), path)
	}
	return cmds
}

// parseReadmeCommand splits one shell line into env, args and "&"; ok is
// false for lines that are not llmbench commands.
func parseReadmeCommand(t *testing.T, line int, text string) (readmeCommand, bool) {
	for _, other := range notLlmbench {
		if strings.HasPrefix(text, other) {
			t.Logf("README line %d is not an llmbench command, not run: %s", line, text)
			return readmeCommand{}, false
		}
	}
	words := shellWords(text)
	c := readmeCommand{line: line}
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
		c.env, words = append(c.env, words[0]), words[1:]
	}
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/llmbench":
		words = words[3:]
	case len(words) > 0 && words[0] == "llmbench":
		words = words[1:]
	default:
		return readmeCommand{}, false
	}
	if len(words) > 0 && words[len(words)-1] == "&" {
		c.background, words = true, words[:len(words)-1]
	}
	c.args = words
	return c, true
}

// shellWords splits a command line like sh: blanks separate words,
// quotes group, "#" starts a comment.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#' && !in:
			return words
		case r == ' ' || r == '\t':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// readmeWorkspace copies what the README's commands read (the example
// config, the example course, the synthetic sweep, the plan's sweep) into
// a scratch folder.
func readmeWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"docs/examples/config.yaml", "courses/classification/data/state.json", "internal/htmlreport/testdata/sweep-synthetic.json", "internal/plan/testdata/sweep-sim-batch8.json"} {
		b, err := os.ReadFile(filepath.Join("../..", p))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// command builds the child process for c: this test binary, which runs
// Main when called as "llmbench" (TestMain).
func command(ctx context.Context, dir string, env []string, c readmeCommand) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], c.args...)
	cmd.Args[0] = "llmbench"
	// A test binary killed outright must not leave the README's servers
	// holding their ports.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Dir, cmd.Env = dir, append(append([]string{}, env...), c.env...)
	return cmd
}

// startBackground starts a server command and waits until its --listen
// address answers; it is killed when the test ends.
func startBackground(t *testing.T, dir string, env []string, c readmeCommand) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := command(ctx, dir, env, c)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	addr := ""
	for i, a := range c.args {
		if a == "--listen" && i+1 < len(c.args) {
			addr = c.args[i+1]
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("README line %d: %s does not listen on %s:\n%s", c.line, strings.Join(c.args, " "), addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runReadme runs a foreground command, bounded in time.
func runReadme(t *testing.T, dir string, env []string, c readmeCommand) (int, string) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := command(ctx, dir, env, c)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		return -1, err.Error() + "\n" + string(out)
	}
	return 0, string(out)
}

// lockREADMEPorts takes a machine-wide lock on the README's fixed ports
// (a file lock in the temporary folder), so two test runs side by side —
// CI's, and a developer's — take turns instead of failing; it waits at
// most ten minutes.
func lockREADMEPorts(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "llmbench-readme-ports.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Minute)
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			f.Close()
			t.Fatal("another test run has held the README's ports (8000, 8080, 9464) for ten minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
