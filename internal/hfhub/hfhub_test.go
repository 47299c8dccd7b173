package hfhub

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/hfhub/hubtest"
)

// gitSHA1 and sha256hex compute the ETags the hub gives regular and LFS
// files independently of hubtest, so the layout checks below also catch a
// fake that names blobs wrongly.
func gitSHA1(b []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(b))
	s.Write(b)
	return hex.EncodeToString(s.Sum(nil))
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func testClient(t *testing.T, endpoint string) *Client {
	env := map[string]string{"HF_HOME": t.TempDir(), "HF_ENDPOINT": endpoint + "/", "HOME": t.TempDir()}
	return FromEnv(func(k string) string { return env[k] })
}

func TestFromEnvPaths(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"HF_HUB_CACHE wins", map[string]string{"HF_HUB_CACHE": "/a", "HF_HOME": "/b", "HOME": "/h"}, "/a"},
		{"HF_HOME/hub", map[string]string{"HF_HOME": "/b", "HOME": "/h"}, "/b/hub"},
		{"XDG cache", map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/huggingface/hub"},
		{"home default", map[string]string{"HOME": "/h"}, "/h/.cache/huggingface/hub"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := FromEnv(func(k string) string { return tc.env[k] })
			if c.CacheDir != tc.want {
				t.Errorf("CacheDir = %q, want %q", c.CacheDir, tc.want)
			}
			if c.Endpoint != DefaultEndpoint {
				t.Errorf("Endpoint = %q", c.Endpoint)
			}
		})
	}
	c := FromEnv(func(k string) string {
		return map[string]string{"HOME": "/h", "HF_HUB_OFFLINE": "1", "HF_TOKEN": "tok", "HF_ENDPOINT": "http://x/"}[k]
	})
	if !c.Offline || c.Token != "tok" || c.Endpoint != "http://x" {
		t.Errorf("FromEnv = %+v", c)
	}
}

func TestTokenFile(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "token"), []byte("hf_saved\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := FromEnv(func(k string) string { return map[string]string{"HF_HOME": home}[k] })
	if c.Token != "hf_saved" {
		t.Errorf("token from HF_HOME/token = %q", c.Token)
	}
}

func TestDownloadIntoCacheLayout(t *testing.T) {
	hub, url := hubtest.Start(t)
	small := []byte(`{"bos_token": "<s>"}`)
	big := []byte(`{"model": "pretend this is 30 MB"}`)
	files := map[string][]byte{"tokenizer_config.json": small, "tokenizer.json": big}
	lfs := map[string]bool{"tokenizer.json": true}
	commit := hub.Add(hubtest.Repo{ID: "org/model", Files: files, LFS: []string{"tokenizer.json"}})
	c := testClient(t, url)
	repo := Repo{ID: "org/model"}

	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		p, err := c.File(t.Context(), repo, f)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		if want := files[f]; string(got) != string(want) {
			t.Errorf("%s content = %q, want %q", f, got, want)
		}
		// huggingface_hub's layout: snapshots/<commit>/<file> -> ../../blobs/<etag>
		root := filepath.Join(c.CacheDir, "models--org--model")
		if want := filepath.Join(root, "snapshots", commit, f); p != want {
			t.Errorf("path = %s, want %s", p, want)
		}
		link, err := os.Readlink(p)
		if err != nil {
			t.Fatalf("%s is not a symlink: %v", p, err)
		}
		etag := gitSHA1(files[f])
		if lfs[f] {
			etag = sha256hex(files[f])
		}
		if want := filepath.Join("..", "..", "blobs", etag); link != want {
			t.Errorf("link = %s, want %s", link, want)
		}
	}
	ref, err := os.ReadFile(filepath.Join(c.CacheDir, "models--org--model", "refs", "main"))
	if err != nil || string(ref) != commit {
		t.Errorf("refs/main = %q (%v), want %q", ref, err, commit)
	}

	// A second lookup, even offline, comes from the cache.
	n := hub.RequestCount()
	c.Offline = true
	if _, err := c.File(t.Context(), repo, "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if hub.RequestCount() != n {
		t.Errorf("cached file was fetched again: %v", hub.Requests()[n:])
	}
	// Pinned to the commit, it is found without refs.
	if _, found, _ := c.Cached(Repo{ID: "org/model", Revision: commit}, "tokenizer.json"); !found {
		t.Error("file not found by commit hash")
	}
}

func TestMissingFileIsRemembered(t *testing.T) {
	hub, url := hubtest.Start(t)
	commit := hub.Add(hubtest.Repo{ID: "org/model", Files: map[string][]byte{"tokenizer.json": []byte("{}")}})
	c := testClient(t, url)
	repo := Repo{ID: "org/model"}
	_, err := c.File(t.Context(), repo, "tokenizer_config.json")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	marker := filepath.Join(c.CacheDir, "models--org--model", ".no_exist", commit, "tokenizer_config.json")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("no .no_exist marker: %v", err)
	}
	n := hub.RequestCount()
	c.Offline = true
	if _, err := c.File(t.Context(), repo, "tokenizer_config.json"); !errors.Is(err, ErrNotFound) {
		t.Errorf("offline err = %v, want ErrNotFound from the marker", err)
	}
	if hub.RequestCount() != n {
		t.Error("the hub was asked again")
	}
}

// TestCachedRevisionStaysInCache: a revision such as "../../x" does not
// find files outside the repository's snapshots.
func TestCachedRevisionStaysInCache(t *testing.T) {
	c := testClient(t, "http://127.0.0.1:1")
	outside := filepath.Join(c.CacheDir, "x")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "tokenizer.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"../../x", "main/../../../x"} {
		if p, found, _ := c.Cached(Repo{ID: "org/model", Revision: rev}, "tokenizer.json"); found {
			t.Errorf("revision %q found %s", rev, p)
		}
	}
}

func TestHubErrors(t *testing.T) {
	hub, url := hubtest.Start(t)
	hub.Add(hubtest.Repo{ID: "org/gated", Files: map[string][]byte{"tokenizer.json": []byte("{}")}, Gated: true})
	hub.SetToken("hf_secret_value")
	hub.Add(hubtest.Repo{ID: "org/new", Files: map[string][]byte{"tokenizer.json": []byte(`{"moved": true}`)}})
	hub.Move(hubtest.Model, "org/old", "org/new")

	tests := []struct {
		name     string
		repo     Repo
		token    string
		offline  bool
		wantErr  string
		notFound bool
	}{
		{"unknown repo", Repo{ID: "org/none"}, "", false, "no such repository", true},
		{"unknown revision", Repo{ID: "org/gated", Revision: "v9"}, "hf_secret_value", false, "no such revision", true},
		{"gated without token", Repo{ID: "org/gated"}, "", false, "set HF_TOKEN", false},
		{"gated with wrong token", Repo{ID: "org/gated"}, "hf_wrong", false, "access denied", false},
		{"gated with token", Repo{ID: "org/gated"}, "hf_secret_value", false, "", false},
		{"renamed repo", Repo{ID: "org/old"}, "", false, "", false},
		{"offline, not cached", Repo{ID: "org/new", Revision: "other"}, "", true, "HF_HUB_OFFLINE is set", false},
		{"bad id", Repo{ID: "../etc"}, "", false, "not a valid hub repository id", false},
		{"bad revision", Repo{ID: "org/new", Revision: "../../x"}, "", false, "not a valid revision", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testClient(t, url)
			c.Token = tc.token
			c.Offline = tc.offline
			p, err := c.File(t.Context(), tc.repo, "tokenizer.json")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if _, err := os.Stat(p); err != nil {
					t.Error(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
			}
			if errors.Is(err, ErrNotFound) != tc.notFound {
				t.Errorf("errors.Is(err, ErrNotFound) = %v, want %v", !tc.notFound, tc.notFound)
			}
			if strings.Contains(err.Error(), "hf_secret_value") || strings.Contains(err.Error(), "hf_wrong") {
				t.Errorf("error leaks the token: %v", err)
			}
		})
	}
}

// TestHeadRedirectStaysOnHost: a metadata redirect to another host is not
// followed, so the token never leaves the hub's host.
func TestHeadRedirectStaysOnHost(t *testing.T) {
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = append(leaked, r.Header.Get("Authorization"))
		w.Header().Set("X-Repo-Commit", strings.Repeat("a", 40))
		w.Header().Set("ETag", `"abc"`)
	}))
	t.Cleanup(other.Close)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(hub.Close)
	c := testClient(t, hub.URL)
	c.Token = "hf_secret_value"
	_, err := c.File(t.Context(), Repo{ID: "org/model"}, "tokenizer.json")
	if err == nil || !strings.Contains(err.Error(), "redirected to another host") {
		t.Fatalf("err = %v, want a refused cross-host redirect", err)
	}
	if strings.Contains(err.Error(), "hf_secret_value") {
		t.Errorf("error leaks the token: %v", err)
	}
	if len(leaked) != 0 {
		t.Errorf("the other host was asked %d times (Authorization %q)", len(leaked), leaked)
	}
}

func TestUnreachableHub(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c := testClient(t, url)
	_, err := c.File(t.Context(), Repo{ID: "org/model"}, "tokenizer.json")
	if err == nil || !strings.Contains(err.Error(), "not in the Hugging Face cache") || !strings.Contains(err.Error(), "downloading it failed") {
		t.Fatalf("err = %v", err)
	}
}

func TestDatasetRepo(t *testing.T) {
	hub, url := hubtest.Start(t)
	hub.Add(hubtest.Repo{Type: hubtest.Dataset, ID: "org/data", Files: map[string][]byte{"train.jsonl": []byte("{}\n")}})
	c := testClient(t, url)
	p, err := c.File(t.Context(), Repo{ID: "org/data", Type: Dataset}, "train.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "datasets--org--data") {
		t.Errorf("path %s not in datasets--org--data", p)
	}
	if got := hub.Requests()[0]; got != "HEAD /datasets/org/data/resolve/main/train.jsonl" {
		t.Errorf("first request = %q", got)
	}
}

func TestChecksumMismatchIsRejected(t *testing.T) {
	hub := hubtest.New()
	hub.Add(hubtest.Repo{ID: "org/model", Files: map[string][]byte{"tokenizer.json": []byte("good")}, LFS: []string{"tokenizer.json"}})
	// Serve different bytes at the CDN path than the advertised sha256.
	mux := http.NewServeMux()
	mux.HandleFunc(hubtest.CDNPrefix, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("evil")) })
	mux.Handle("/", hub)
	c := testClient(t, hubtest.Serve(t, mux))
	_, err := c.File(t.Context(), Repo{ID: "org/model"}, "tokenizer.json")
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v, want a sha256 mismatch", err)
	}
	if _, found, _ := c.Cached(Repo{ID: "org/model"}, "tokenizer.json"); found {
		t.Error("a corrupt download was cached")
	}
}

func TestValidRepoID(t *testing.T) {
	for id, want := range map[string]bool{
		"google/gemma-3-4b-it": true, "gpt2": true, "Qwen/Qwen3-8B": true, "a/b/c": false,
		"../x": false, "org/..": false, "": false, "org/na--me": false, "/abs": false,
	} {
		if got := ValidRepoID(id); got != want {
			t.Errorf("ValidRepoID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestListAndSnapshot: List returns the commit and the file names, records
// refs/REV so that Snapshot finds the folder once a file is in it, and
// reports a missing repository as ErrNotFound.
func TestListAndSnapshot(t *testing.T) {
	hub, url := hubtest.Start(t)
	files := map[string][]byte{"data/train.parquet": []byte("PAR1"), "README.md": []byte("# card\n")}
	commit := hub.Add(hubtest.Repo{Type: hubtest.Dataset, ID: "org/data", Files: files, LFS: []string{"data/train.parquet"}})
	c := testClient(t, url)
	repo := Repo{ID: "org/data", Type: Dataset}
	if _, ok := c.Snapshot(repo); ok {
		t.Fatal("snapshot found in an empty cache")
	}
	got, names, err := c.List(t.Context(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if got != commit {
		t.Errorf("commit %q, want %q", got, commit)
	}
	for f := range files {
		if !slices.Contains(names, f) {
			t.Errorf("files %v lack %s", names, f)
		}
	}
	if _, err := c.File(t.Context(), Repo{ID: "org/data", Type: Dataset, Revision: got}, "data/train.parquet"); err != nil {
		t.Fatal(err)
	}
	dir, ok := c.Snapshot(repo) // "main", through the ref List wrote
	if want := filepath.Join(c.CacheDir, "datasets--org--data", "snapshots", commit); !ok || dir != want {
		t.Errorf("Snapshot = %s, %v; want %s", dir, ok, want)
	}

	_, _, err = c.List(t.Context(), Repo{ID: "org/none", Type: Dataset})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "org/none") {
		t.Errorf("missing repo: %v", err)
	}
	c.Offline = true
	n := hub.RequestCount()
	if _, _, err := c.List(t.Context(), repo); err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
		t.Errorf("offline: %v", err)
	}
	if hub.RequestCount() != n {
		t.Error("offline List asked the hub")
	}
}

// TestWriteRefReplacesSymlink: a ref file is replaced whole (atomicfile),
// never written through a symlink planted at its path — os.WriteFile
// followed it and overwrote the link's target.
func TestWriteRefReplacesSymlink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "refs", "main")); err != nil {
		t.Fatal(err)
	}
	if err := writeRef(root, "main", "0123abcd"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "refs", "main")); string(b) != "0123abcd" {
		t.Errorf("ref = %q, want the commit", b)
	}
}
