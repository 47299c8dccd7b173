package hubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestKnownHashes pins the ETag functions to values computed elsewhere:
// `git hash-object` and `sha256sum` of "hello\n".
func TestKnownHashes(t *testing.T) {
	if got := GitBlobSHA1([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("GitBlobSHA1 = %s", got)
	}
	if got := SHA256Hex([]byte("hello\n")); got != "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03" {
		t.Errorf("SHA256Hex = %s", got)
	}
}

// TestWire checks the fake's answers on the wire, header by header, with a
// plain HTTP client that does not follow redirects.
func TestWire(t *testing.T) {
	hub, url := Start(t)
	hub.SetToken("hf_good")
	cfg := []byte(`{"bos_token": "<s>"}`)
	big := []byte("pretend these are weights")
	model := hub.Add(Repo{ID: "org/model", Files: map[string][]byte{"config.json": cfg, "sub/w.bin": big}, LFS: []string{"sub/w.bin"}})
	data := hub.Add(Repo{Type: Dataset, ID: "org/data", Commit: strings.Repeat("0a", 20), Gated: true, Files: map[string][]byte{"train.jsonl": []byte("{}\n")}})
	hub.Add(Repo{ID: "org/private", Private: true, Files: map[string][]byte{"config.json": cfg}})
	hub.Move(Model, "org/old", "org/model")
	hub.Move(Dataset, "org/olddata", "org/data")

	tests := []struct {
		name, method, path, token string
		status                    int
		headers                   map[string]string // "" value: header must be absent
	}{
		{"file", "HEAD", "/org/model/resolve/main/config.json", "", 200, map[string]string{
			"X-Repo-Commit": model, "ETag": `"` + GitBlobSHA1(cfg) + `"`, "Content-Length": "20", "X-Linked-Etag": ""}},
		{"file by commit", "HEAD", "/org/model/resolve/" + model + "/config.json", "", 200, map[string]string{"X-Repo-Commit": model}},
		{"lfs file", "HEAD", "/org/model/resolve/main/sub/w.bin", "", 302, map[string]string{
			"X-Repo-Commit": model, "X-Linked-Etag": `"` + SHA256Hex(big) + `"`, "X-Linked-Size": "25",
			"Location": CDNPrefix + "org/model/" + SHA256Hex(big)}},
		{"cdn", "GET", CDNPrefix + "org/model/" + SHA256Hex(big), "", 200, map[string]string{"Content-Length": "25"}},
		{"cdn, unknown object", "GET", CDNPrefix + "org/model/" + SHA256Hex(cfg), "", 404, nil},
		{"missing file", "HEAD", "/org/model/resolve/main/nope.json", "", 404, map[string]string{
			"X-Error-Code": "EntryNotFound", "X-Repo-Commit": model}},
		{"unknown revision", "HEAD", "/org/model/resolve/v9/config.json", "", 404, map[string]string{"X-Error-Code": "RevisionNotFound", "X-Repo-Commit": ""}},
		{"escaped revision", "HEAD", "/org/model/resolve/refs%2Fpr%2F1/config.json", "", 404, map[string]string{"X-Error-Code": "RevisionNotFound"}},
		{"unknown repo", "HEAD", "/org/none/resolve/main/config.json", "", 404, map[string]string{"X-Error-Code": "RepoNotFound"}},
		{"model path for a dataset", "HEAD", "/org/data/resolve/main/train.jsonl", "hf_good", 404, map[string]string{"X-Error-Code": "RepoNotFound"}},
		{"bad token, public repo", "HEAD", "/org/model/resolve/main/config.json", "hf_bad", 401, map[string]string{"X-Error-Code": ""}},
		{"private, no token", "HEAD", "/org/private/resolve/main/config.json", "", 401, map[string]string{"X-Error-Code": "RepoNotFound"}},
		{"private, token", "HEAD", "/org/private/resolve/main/config.json", "hf_good", 200, nil},
		{"private listing, no token", "GET", "/api/models/org/private/revision/main", "", 401, map[string]string{"X-Error-Code": "RepoNotFound"}},
		{"gated, no token", "HEAD", "/datasets/org/data/resolve/main/train.jsonl", "", 401, map[string]string{"X-Error-Code": "GatedRepo"}},
		{"gated, token", "HEAD", "/datasets/org/data/resolve/main/train.jsonl", "hf_good", 200, map[string]string{"X-Repo-Commit": data}},
		{"gated listing is public", "GET", "/api/datasets/org/data/revision/main", "", 200, nil},
		{"listing, unknown revision", "GET", "/api/datasets/org/data/revision/v2", "", 404, map[string]string{"X-Error-Code": "RevisionNotFound"}},
		{"renamed, resolve", "HEAD", "/org/old/resolve/main/config.json", "", 307, map[string]string{"Location": "/org/model/resolve/main/config.json"}},
		{"renamed, listing", "GET", "/api/datasets/org/olddata/revision/main", "", 307, map[string]string{"Location": "/api/datasets/org/data/revision/main"}},
		{"renamed, bare listing", "GET", "/api/datasets/org/olddata", "", 307, map[string]string{"Location": "/api/datasets/org/data"}},
		{"not a hub method", "POST", "/org/model/resolve/main/config.json", "", 405, nil},
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tc.method, url+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			for h, want := range tc.headers {
				if got := resp.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
		})
	}
}

func TestListingAndCounters(t *testing.T) {
	hub, url := Start(t)
	w := []byte("weights")
	commit := hub.Add(Repo{ID: "org/model", Files: map[string][]byte{"b.json": []byte("{}"), "a/w.bin": w}, LFS: []string{"a/w.bin"}})

	get := func(path string) []byte {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return b
	}
	for _, path := range []string{"/api/models/org/model/revision/main", "/api/models/org/model/revision/" + commit, "/api/models/org/model"} {
		var info struct {
			ID       string `json:"id"`
			SHA      string `json:"sha"`
			Private  bool   `json:"private"`
			Gated    any    `json:"gated"`
			Siblings []struct {
				RFilename string `json:"rfilename"`
			} `json:"siblings"`
		}
		if err := json.Unmarshal(get(path), &info); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range info.Siblings {
			names = append(names, s.RFilename)
		}
		if info.ID != "org/model" || info.SHA != commit || info.Private || info.Gated != false ||
			strings.Join(names, ",") != ".gitattributes,a/w.bin,b.json" {
			t.Errorf("%s: %+v", path, info)
		}
	}
	if got := string(get("/org/model/resolve/main/.gitattributes")); got != "a/w.bin filter=lfs diff=lfs merge=lfs -text\n" {
		t.Errorf(".gitattributes = %q", got)
	}
	if hub.Downloads() != 1 || hub.FileDownloads(Model, "org/model", ".gitattributes") != 1 {
		t.Errorf("downloads %d", hub.Downloads())
	}
	// http.Get follows the LFS redirect to the CDN: one download of the
	// weights, counted against the file, not the redirect.
	if got := string(get("/org/model/resolve/main/a/w.bin")); got != "weights" {
		t.Errorf("LFS content %q", got)
	}
	if hub.FileDownloads(Model, "org/model", "a/w.bin") != 1 || hub.Downloads() != 2 {
		t.Errorf("downloads %d, of a/w.bin %d", hub.Downloads(), hub.FileDownloads(Model, "org/model", "a/w.bin"))
	}
	reqs := hub.Requests()
	if len(reqs) != hub.RequestCount() || reqs[len(reqs)-2] != "GET /org/model/resolve/main/a/w.bin" ||
		reqs[len(reqs)-1] != "GET "+CDNPrefix+"org/model/"+SHA256Hex(w) {
		t.Errorf("requests %v", reqs)
	}
}

func TestAddRejectsBadCommit(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Add accepted a short commit")
		}
	}()
	New().Add(Repo{ID: "org/x", Commit: "abc"})
}
