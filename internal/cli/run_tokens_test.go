package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/nettest"
)

// TestRunSilentServerWithTokenizer: a server that accepts connections and
// never answers ends a run with a tokenizer after the token check's few
// seconds and the request timeout, not 30 s per side call (or never).
func TestRunSilentServerWithTokenizer(t *testing.T) {
	t.Parallel()
	addr := nettest.Silent(t)
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(t, "run", "--base-url", "http://"+addr, "--model", "m", "--tokenizer", "builtin:gpt2",
			"--num-prompts", "2", "--request-timeout", "1s", "--disable-tqdm")
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.errs, "no request succeeded (2 of 2 failed") {
			t.Errorf("exit %d, want 1 with both requests failed:\n%s", r.code, r.errs)
		}
		if strings.Count(r.errs, "/tokenize") != 1 || !strings.Contains(r.errs, "Warning: /tokenize gave no complete answer within 5s") {
			t.Errorf("want one line about /tokenize:\n%s", r.errs)
		}
	case <-time.After(45 * time.Second): // 5 s + 1 s expected; two 30 s side calls before
		t.Fatal("a run against a server that never answers did not end within 45 s")
	}
}
