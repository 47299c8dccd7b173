package cli

import (
	"strings"
	"testing"
)

// TestWrongModelDiagnosis: a --model the server does not serve is said
// to be that, with what /v1/models lists, on a run big enough for the
// early stop and on a small one (issue 29 item 6: "check --endpoint ...
// /v1", and no hint at all with 10 requests or fewer).
func TestWrongModelDiagnosis(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	for _, n := range []string{"4", "40"} {
		code, out, errs := runCLI(t, "run", "--no-config", "--base-url", srv.URL, "--model", "no-such-model", "--skip-tokenizer-init",
			"--num-prompts", n, "--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm")
		want := `the server does not serve model "no-such-model"; its /v1/models lists: llmbench-sim`
		if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "check --endpoint") {
			t.Errorf("%s prompts: exit %d, want 1 and %q\n%s\n%s", n, code, want, out, errs)
		}
	}
}

// TestModelFromServerIsNamed: without --model the model taken from
// /v1/models is printed.
func TestModelFromServerIsNamed(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	code, out, errs := runCLI(t, "run", "--no-config", "--base-url", srv.URL, "--skip-tokenizer-init",
		"--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm")
	if code != 0 || !strings.Contains(errs, "Model: llmbench-sim (from the server's /v1/models; --model chooses)") {
		t.Errorf("exit %d; the model taken is not named\n%s\n%s", code, out, errs)
	}
}

// TestBaseURLWithoutScheme: --base-url 127.0.0.1:8000 gets "add http://",
// not Go's "first path segment in URL cannot contain colon".
func TestBaseURLWithoutScheme(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"run", "sweep"} {
		args := []string{cmd, "--no-config", "--base-url", "127.0.0.1:8000", "--model", "m"}
		if cmd == "sweep" {
			args = append(args, "--concurrency", "1")
		}
		code, _, errs := runCLI(t, args...)
		if want := "--base-url 127.0.0.1:8000 has no scheme: add http:// (--base-url http://127.0.0.1:8000) or https://"; code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", cmd, code, want, errs)
		}
	}
}
