package cli

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// TestTokenizerMessages: what a run says about tokenizers, in one short
// line each, with no network error text.
func TestTokenizerMessages(t *testing.T) {
	t.Parallel()
	words := startSim(t, nil)
	gpt2 := startSim(t, func(c *sim.Config) {
		tok, err := tokenizer.Load(t.Context(), tokenizer.BuiltinGPT2, tokenizer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.Tokenizer = tok
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	offline := "http://" + ln.Addr().String()
	ln.Close()
	tests := []struct {
		name       string
		url        string
		args       []string
		code       int
		want, not  []string
		mismatches int
	}{
		{"the simulator counting words says so, without a hub error", words.URL, nil, 0,
			[]string{"the server (llmbench sim) counts one token per word"}, []string{"no such host", "dial tcp", "huggingface"}, 0},
		{"the simulator's own tokenizer is used", gpt2.URL, nil, 0,
			[]string{"counting tokens with builtin:gpt2, the tokenizer the server names", "Total input tokens:                      96"}, []string{"mismatch"}, 0},
		{"one mismatch warning, not two", words.URL, []string{"--tokenizer", "builtin:gpt2"}, 0, nil, nil, 1},
		{"an unreachable hub points at the built-in tokenizer", words.URL, []string{"--tokenizer", "gpt2", "--hf-hub-for-test", offline}, 1,
			[]string{"builtin:gpt2 is GPT-2's tokenizer built into llmbench"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--base-url", tt.url, "--model", "llmbench-sim", "--num-prompts", "3",
				"--random-input-len", "32", "--random-output-len", "4", "--disable-tqdm"}, tt.args...)
			args, env := hubOverride(args)
			code, out, errs := runCLIEnv(t, env, args...)
			all := out + errs
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, all)
			}
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(all, n) {
					t.Errorf("output has %q:\n%s", n, all)
				}
			}
			if n := strings.Count(errs, "tokenizer mismatch"); n != tt.mismatches {
				t.Errorf("%d mismatch warnings, want %d:\n%s", n, tt.mismatches, errs)
			}
		})
	}
}

// hubOverride turns the test-only "--hf-hub-for-test URL" pair into
// HF_ENDPOINT, so a test sees an unreachable hub whatever the network.
func hubOverride(args []string) ([]string, map[string]string) {
	for i, a := range args {
		if a == "--hf-hub-for-test" {
			return append(args[:i:i], args[i+2:]...), map[string]string{"HF_ENDPOINT": args[i+1], "HF_HUB_CACHE": "/nonexistent-hf-cache"}
		}
	}
	return args, nil
}

// TestHelpAndTypos: grouped, narrow help; a suggestion for a mistyped
// flag; one default per flag in demo's help.
func TestHelpAndTypos(t *testing.T) {
	t.Parallel()
	code, _, errs := runCLI(t, "run", "--max-concurency", "3")
	if code != 2 || !strings.Contains(errs, "did you mean --max-concurrency?") {
		t.Errorf("exit %d: %s", code, errs)
	}
	_, out, _ := runCLI(t, "run", "--help")
	for _, h := range []string{"Endpoint and authentication:", "SageMaker:", "Load:", "Dataset:", "Tokenizer:", "Output:"} {
		if !strings.Contains(out, "\n"+h+"\n") {
			t.Errorf("run --help lacks the section %q", h)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		// Only a single unbreakable word may overflow 80 columns.
		if len(line) > 80 && strings.Contains(strings.TrimSpace(line), " ") {
			t.Errorf("help line over 80 columns: %q", line)
		}
	}
	_, out, _ = runCLI(t, "demo", "--help")
	for _, line := range strings.Split(out, "\n") {
		if strings.Count(line, "(default") > 1 {
			t.Errorf("two defaults on one line: %q", line)
		}
	}
}

// runCLIEnv is runCLI with some environment variables replaced.
func runCLIEnv(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}}
	code := mainEnv(t.Context(), env, args)
	return code, out.String(), errb.String()
}
