package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/hfhub/hubtest"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
)

// hfRun is one `llmbench run` of the online/offline test: its records (the
// saved file read back, and its raw bytes to look for the token) and
// output.
type hfRun struct {
	recs          []record.Record
	saved         string
	stdout, errs  string
	serverPrompts map[string]int // request id -> prompt tokens the simulator counted
}

// runHF runs llmbench against srv with the hf dataset flags and args;
// unlike runRecords it keeps stderr, which must not show the token either.
func runHF(t *testing.T, srv *sim.Running, prefix string, args ...string) hfRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recs.jsonl")
	args = append([]string{"run", "--base-url", srv.URL, "--model", "llmbench-sim", "--dataset-name", "hf",
		"--request-id-prefix", prefix, "--disable-tqdm", "--save-records", path}, args...)
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("run %q: exit %d\n%s\n%s", args, code, out, errs)
	}
	_, recs, _, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := hfRun{recs: recs, saved: string(saved), stdout: out, errs: errs, serverPrompts: map[string]int{}}
	for _, tr := range srv.Server.Truth() {
		if tr.Endpoint == "completions" && strings.HasPrefix(tr.RequestID, prefix) {
			r.serverPrompts[strings.TrimPrefix(tr.RequestID, prefix)] = tr.PromptTokens
		}
	}
	return r
}

// TestRunHFDatasetOnline: --dataset-name hf with --dataset-path ORG/NAME
// downloads a private dataset (and the tokenizer) from the hub named by
// HF_ENDPOINT with HF_TOKEN into HF_HUB_CACHE, in huggingface_hub's layout;
// a second run with HF_HUB_OFFLINE=1 reads the same prompts from that cache
// without asking the hub; the token shows nowhere. TestRunHFDatasetFromCache
// is the offline-only twin with a hand-made cache.
func TestRunHFDatasetOnline(t *testing.T) {
	const (
		token = "hf_llmbench_e2e_Secret_9f3a"
		n     = 9
		train = "data/train-00000-of-00001.jsonl"
	)
	hub, url := hubtest.Start(t)
	hub.SetToken(token)
	// Prompts of different lengths, so prompt_len tells them apart.
	var rows, other strings.Builder
	for i := range n {
		fmt.Fprintf(&rows, "{\"prompt\": \"Question number %d: why is the sky %sblue at noon?\"}\n", i, strings.Repeat("very ", i))
		fmt.Fprintf(&other, "{\"prompt\": \"Test question %d, never used here.\"}\n", i)
	}
	commit := hub.Add(hubtest.Repo{Type: hubtest.Dataset, ID: "acme/questions", Private: true, Files: map[string][]byte{
		train:                            []byte(rows.String()),
		"data/test-00000-of-00001.jsonl": []byte(other.String()),
		"README.md":                      []byte("# questions\n"),
	}})
	tokDir := gpt2Path(t)
	tokFiles := map[string][]byte{}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(tokDir, f))
		if err != nil {
			t.Fatal(err)
		}
		tokFiles[f] = b
	}
	tokCommit := hub.Add(hubtest.Repo{ID: "acme/gpt2", Private: true, Files: tokFiles, LFS: []string{"tokenizer.json"}})

	cache := t.TempDir()
	t.Setenv("HF_ENDPOINT", url)
	t.Setenv("HF_TOKEN", token)
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HOME", t.TempDir()) // no token file from this machine
	t.Setenv("HF_TOKEN_PATH", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	args := []string{"--dataset-path", "acme/questions", "--tokenizer", "acme/gpt2",
		"--num-prompts", fmt.Sprint(n), "--hf-output-len", "5", "--no-oversample"}

	online := runHF(t, startSim(t, nil), "on-", args...)
	if len(online.recs) != n {
		t.Fatalf("%d records, want %d\n%s", len(online.recs), n, online.stdout)
	}
	lens := map[int]bool{}
	for _, r := range online.recs {
		if !r.Success || r.ExpectedOutputLen != 5 {
			t.Errorf("request %d: success %v, max_tokens %d (want 5): %s", r.Index, r.Success, r.ExpectedOutputLen, r.Error)
		}
		lens[r.PromptLen] = true
	}
	if len(lens) != n {
		t.Errorf("prompt lengths %v: want %d different prompts", lens, n)
	}
	if len(online.serverPrompts) != n {
		t.Errorf("server saw %d distinct requests, want %d", len(online.serverPrompts), n)
	}
	if strings.Contains(online.errs, "no tokenizer") {
		t.Errorf("the tokenizer was not loaded from the hub:\n%s", online.errs)
	}

	// Only the train split was downloaded, once, and the tokenizer once.
	if got := hub.FileDownloads(hubtest.Dataset, "acme/questions", train); got != 1 {
		t.Errorf("train split downloaded %d times, want 1", got)
	}
	if got := hub.Downloads(); got != 3 {
		t.Errorf("%d downloads, want 3 (train split, tokenizer.json, tokenizer_config.json): %v", got, hub.Requests())
	}
	// huggingface_hub's layout: refs/main names the commit, the snapshot
	// file is a relative symlink to blobs/<git blob sha1> with the content.
	root := filepath.Join(cache, "datasets--acme--questions")
	if ref, err := os.ReadFile(filepath.Join(root, "refs", "main")); err != nil || string(ref) != commit {
		t.Errorf("refs/main = %q (%v), want %q", ref, err, commit)
	}
	snap := filepath.Join(root, "snapshots", commit, filepath.FromSlash(train))
	link, err := os.Readlink(snap)
	if want := filepath.Join("..", "..", "..", "blobs", hubtest.GitBlobSHA1([]byte(rows.String()))); err != nil || link != want {
		t.Errorf("%s -> %q (%v), want a symlink to %s", snap, link, err, want)
	}
	if b, err := os.ReadFile(snap); err != nil || string(b) != rows.String() {
		t.Errorf("cached train split = %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(cache, "models--acme--gpt2", "snapshots", tokCommit, "tokenizer.json")); err != nil {
		t.Errorf("tokenizer not in the cache: %v", err)
	}

	// Offline: the same prompts, from the cache alone.
	asked := hub.RequestCount()
	t.Setenv("HF_HUB_OFFLINE", "1")
	offline := runHF(t, startSim(t, nil), "off-", args...)
	if n := hub.RequestCount(); n != asked {
		t.Errorf("the offline run asked the hub %d times: %v", n-asked, hub.Requests()[asked:])
	}
	if len(offline.recs) != len(online.recs) {
		t.Fatalf("offline run: %d records, online %d", len(offline.recs), len(online.recs))
	}
	for i, r := range offline.recs {
		o := online.recs[i]
		if r.Index != o.Index || r.PromptLen != o.PromptLen || r.ExpectedOutputLen != o.ExpectedOutputLen || !r.Success {
			t.Errorf("record %d: offline (index %d, prompt_len %d, max_tokens %d, success %v), online (index %d, prompt_len %d, max_tokens %d)",
				i, r.Index, r.PromptLen, r.ExpectedOutputLen, r.Success, o.Index, o.PromptLen, o.ExpectedOutputLen)
		}
	}
	if fmt.Sprint(offline.serverPrompts) != fmt.Sprint(online.serverPrompts) {
		t.Errorf("the server counted different prompts offline %v than online %v", offline.serverPrompts, online.serverPrompts)
	}
	// The cache is read first either way; what HF_HUB_OFFLINE changes is
	// that the split never downloaded is not fetched now.
	code, out, errs := runCLI(t, append([]string{"run", "--base-url", startSim(t, nil).URL, "--model", "llmbench-sim",
		"--dataset-name", "hf", "--hf-split", "test", "--disable-tqdm"}, args...)...)
	if code == 0 || !strings.Contains(errs, `split "test"`) {
		t.Errorf("offline run of the uncached test split: exit %d, stderr %q; want a failure naming the split\n%s", code, errs, out)
	}
	if got := hub.Downloads(); got != 3 || hub.RequestCount() != asked {
		t.Errorf("offline runs downloaded (%d downloads, want 3) or asked the hub: %v", got, hub.Requests()[asked:])
	}
	if strings.Contains(out+errs, token) {
		t.Error("the failed offline run shows the token")
	}

	// The token is never printed nor saved.
	for name, s := range map[string]string{
		"online stdout": online.stdout, "online stderr": online.errs, "online records": online.saved,
		"offline stdout": offline.stdout, "offline stderr": offline.errs, "offline records": offline.saved,
	} {
		if strings.Contains(s, token) {
			t.Errorf("%s shows the token", name)
		}
	}
	err = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), token) {
			t.Errorf("cache file %s holds the token", p)
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
}

// TestRunHFDatasetNeedsToken: without HF_TOKEN a private dataset fails with
// one clear error naming HF_TOKEN, and nothing is cached.
func TestRunHFDatasetNeedsToken(t *testing.T) {
	hub, url := hubtest.Start(t)
	hub.SetToken("hf_only_the_hub_knows")
	hub.Add(hubtest.Repo{Type: hubtest.Dataset, ID: "acme/questions", Private: true, Files: map[string][]byte{
		"train.jsonl": []byte("{\"prompt\": \"Why is the sky blue at noon, exactly?\"}\n"),
	}})
	cache := t.TempDir()
	t.Setenv("HF_ENDPOINT", url)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_TOKEN_PATH", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	srv := startSim(t, nil)
	code, out, errs := runCLI(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", gpt2Path(t),
		"--dataset-name", "hf", "--dataset-path", "acme/questions", "--num-prompts", "1", "--disable-tqdm")
	if code == 0 || !strings.Contains(errs, "acme/questions") || !strings.Contains(errs, "HF_TOKEN") {
		t.Errorf("exit %d, stderr %q: want a failure naming the dataset and HF_TOKEN\n%s", code, errs, out)
	}
	if hub.Downloads() != 0 {
		t.Errorf("%d downloads without the token", hub.Downloads())
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets--acme--questions", "snapshots")); err == nil {
		t.Error("a snapshot was cached without access")
	}
}
