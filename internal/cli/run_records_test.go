package cli

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// TestRunRedactsEchoedAnswers: a server that echoes the credentials into
// a successful answer gets neither the API key nor a --header value into
// the saved result (generated_texts) or the records (generated_text).
func TestRunRedactsEchoedAnswers(t *testing.T) {
	t.Parallel()
	const key, team = "sk-live-7f3a9c0d2b", "tok-91d8e5aa40"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		echo := fmt.Sprintf("you sent %s and %s", r.Header.Get("Authorization"), r.Header.Get("X-Team"))
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"text\":%q,\"finish_reason\":null}]}\n\n", echo)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\" ok\",\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	code, out, errs := runCLIEnv(t, map[string]string{"OPENAI_API_KEY": key}, "run", "--base-url", srv.URL, "--model", "m",
		"--skip-tokenizer-init", "--header", "X-Team="+team, "--num-prompts", "3", "--random-input-len", "8", "--random-output-len", "2",
		"--disable-tqdm", "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, name := range []string{"r.json", "r.records.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{key, team} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret %q", name, secret)
			}
		}
		if !strings.Contains(string(b), "you sent "+redact.Mask+" and "+redact.Mask) {
			t.Errorf("%s: the answer is not kept with the secrets masked:\n%.600s", name, b)
		}
	}
}

// leftovers fails when dir holds other than n entries (a temporary file
// left behind).
func leftovers(t *testing.T, dir string, n int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != n {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want %d entries", dir, names, n)
	}
}

// fullDisk accepts its first ok writes and fails every later one with
// ENOSPC, as a disk that fills up during the run.
type fullDisk struct {
	w  io.Writer
	ok int
}

func (d *fullDisk) Write(b []byte) (int, error) {
	if d.ok <= 0 {
		return 0, syscall.ENOSPC
	}
	d.ok--
	return d.w.Write(b)
}

// TestRunRecordsFullDisk: --save-records on a disk that fills up (before
// the header, or after it) exits non-zero and leaves no file under the
// final name, nor a temporary one. Not parallel: it sets the package's
// file hook.
func TestRunRecordsFullDisk(t *testing.T) {
	srv := startSim(t, nil)
	for _, ok := range []int{0, 1} {
		t.Run(fmt.Sprintf("%d writes pass", ok), func(t *testing.T) {
			wrapFileWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, ok: ok} }
			t.Cleanup(func() { wrapFileWriter = nil })
			dir := t.TempDir()
			path := filepath.Join(dir, "r.records.jsonl")
			code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--num-prompts", "4",
				"--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm", "--save-records", path)
			if code == 0 {
				t.Errorf("exit 0 with the records lost\n%s\n%s", out, errs)
			}
			if !strings.Contains(errs, "no space left on device") {
				t.Errorf("stderr does not say why:\n%s", errs)
			}
			if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is there (%v): a cut file under the final name", path, err)
			}
			leftovers(t, dir, 0)
		})
	}
	// With --save-result alone the records go to a temporary copy, removed
	// once the result is saved: losing it loses nothing, and the run says
	// so without failing.
	t.Run("the temporary copy", func(t *testing.T) {
		wrapFileWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, ok: 1} }
		t.Cleanup(func() { wrapFileWriter = nil })
		dir := t.TempDir()
		code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--num-prompts", "4",
			"--random-input-len", "8", "--random-output-len", "4", "--disable-tqdm", "--save-result", "--result-dir", dir, "--result-filename", "r.json")
		if code != 0 || !strings.Contains(errs, "Warning: writing the records file") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
		leftovers(t, dir, 1) // r.json
	})
}

// TestRunStoppedEarlyKeepsRecords: a run stopped early (its first
// requests all failed as a misconfiguration fails) leaves the records of
// those failures, which llmbench metrics reads back.
func TestRunStoppedEarlyKeepsRecords(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	path := filepath.Join(t.TempDir(), "r.records.jsonl")
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--endpoint", "/vl/completions", "--model", "llmbench-sim",
		"--num-prompts", "40", "--request-rate", "4", "--random-input-len", "8", "--random-output-len", "4",
		"--skip-tokenizer-init", "--disable-tqdm", "--save-records", path)
	if code != 1 || !strings.Contains(errs, "stopped early") {
		t.Fatalf("exit %d, want 1 with the early stop\n%s\n%s", code, out, errs)
	}
	_, recs, _, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 5 {
		t.Fatalf("%d records, want the 5 failures that stopped the run", len(recs))
	}
	for _, r := range recs {
		if r.Success || r.ErrorClass != record.ErrHTTP4xx {
			t.Errorf("record %d: success %v, class %q", r.Index, r.Success, r.ErrorClass)
		}
	}
	code, out, errs = runCLI(t, "metrics", path)
	if code != 0 || !strings.Contains(out, "Failed requests:") || !strings.Contains(errs, "stopped early") {
		t.Errorf("metrics: exit %d\n%s\n%s", code, out, errs)
	}
}
