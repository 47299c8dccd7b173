// Package hubtest is a loopback stand-in for the Hugging Face hub, shared by
// the tests of every package that downloads from it (hfhub, tokenizer,
// dataset, the run command).
//
// It answers the endpoints huggingface_hub (and so hfhub) uses with the real
// hub's status codes and headers:
//
//   - HEAD/GET /{repo}/resolve/{rev}/{file} and
//     /datasets/{repo}/resolve/{rev}/{file}: X-Repo-Commit, ETag (the git
//     blob sha1), Content-Length; Git LFS files answer 302 to a CDN URL with
//     X-Linked-Etag (their sha256) and X-Linked-Size instead;
//   - GET /api/models/{repo}/revision/{rev} and
//     /api/datasets/{repo}/revision/{rev}: {"id","sha","private","gated",
//     "siblings":[{"rfilename"}]};
//   - errors as 404 with X-Error-Code RepoNotFound, RevisionNotFound or
//     EntryNotFound, 401 for a bad token or a gated/private repository
//     without one, 307 for renamed repositories.
//
// It deliberately does not import hfhub: a fake built from the client's own
// code could not catch the client's bugs.
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// RepoType is the kind of hub repository; its values match hfhub.RepoType.
type RepoType string

// The repository kinds the fake hub serves.
const (
	Model   RepoType = "model"
	Dataset RepoType = "dataset"
)

// prefix is the URL path segment of the kind ("" for models, whose URLs
// have none on the real hub).
func (t RepoType) prefix() string {
	if t == Dataset {
		return "datasets/"
	}
	return ""
}

// CDNPrefix is the path under which the hub's LFS redirects point, standing
// in for cdn-lfs.huggingface.co. A test can serve something else there (a
// corrupt mirror) by putting a handler in front of the Hub.
const CDNPrefix = "/cdn-lfs/"

// Repo is one repository on the fake hub, at one commit.
type Repo struct {
	// Type is Model or Dataset; "" means Model.
	Type RepoType
	// ID is "ORG/NAME" or a bare "NAME".
	ID string
	// Commit is the 40-hex sha that "main" points at; "" derives a fixed
	// one from the type and ID. The hub knows two revisions: "main" and
	// this commit, as a repository with one branch does.
	Commit string
	// Files maps a path in the repository to its content. A .gitattributes
	// naming the LFS files is added when absent, as every hub repository
	// has one.
	Files map[string][]byte
	// LFS lists the paths stored in Git LFS (large files, Parquet): their
	// resolve answers redirect to the CDN and their ETag is the sha256.
	LFS []string
	// Gated repositories serve files only to a request with the hub's
	// token (401 with X-Error-Code GatedRepo otherwise); their listing
	// stays public, as on the hub where anyone may see a gated model card.
	Gated bool
	// Private repositories answer everything without the token with 401
	// and X-Error-Code RepoNotFound: the hub does not reveal that they
	// exist.
	Private bool
}

// repo is an added Repo; it is never modified after Add, so handlers read
// it without the lock.
type repo struct {
	Repo
	lfs map[string]bool
}

func key(t RepoType, id string) string { return string(t) + ":" + id }

// Hub is an http.Handler serving repositories the way huggingface.co does.
// Build it with New (or Start), add repositories with Add; it is safe for
// concurrent use.
type Hub struct {
	mu        sync.Mutex
	token     string
	repos     map[string]*repo
	moved     map[string]string // key(type, old id) -> new id
	requests  []string
	downloads map[string]int // key(type, id) + "/" + file -> GETs that sent the content
}

// New returns an empty hub that accepts no token.
func New() *Hub {
	return &Hub{repos: map[string]*repo{}, moved: map[string]string{}, downloads: map[string]int{}}
}

// Serve serves h on a fresh 127.0.0.1 port until the test ends and returns
// its base URL (what HF_ENDPOINT is set to).
func Serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv.URL
}

// Start serves a new empty hub on 127.0.0.1 until the test ends and returns
// it with its base URL.
func Start(tb testing.TB) (*Hub, string) {
	tb.Helper()
	h := New()
	return h, Serve(tb, h)
}

// SetToken sets the one token the hub accepts: the user it stands for has
// access to every gated and private repository. Any other bearer token is
// refused with 401 on every endpoint, as the hub refuses invalid
// credentials even for public repositories.
func (h *Hub) SetToken(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.token = token
}

var commitRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Add puts r on the hub (replacing any repository of the same type and ID)
// and returns its commit. It panics on an invalid Commit, a mistake in the
// test itself.
func (h *Hub) Add(r Repo) string {
	if r.Type == "" {
		r.Type = Model
	}
	if r.Commit == "" {
		s := sha1.Sum([]byte(key(r.Type, r.ID)))
		r.Commit = hex.EncodeToString(s[:])
	}
	if !commitRe.MatchString(r.Commit) {
		panic(fmt.Sprintf("hubtest: commit %q is not 40 lowercase hex digits", r.Commit))
	}
	files := make(map[string][]byte, len(r.Files)+1)
	for name, b := range r.Files {
		files[name] = b
	}
	lfs := map[string]bool{}
	for _, name := range r.LFS {
		lfs[name] = true
	}
	if _, ok := files[".gitattributes"]; !ok {
		var ga strings.Builder
		for _, name := range slices.Sorted(maps.Keys(lfs)) {
			fmt.Fprintf(&ga, "%s filter=lfs diff=lfs merge=lfs -text\n", name)
		}
		files[".gitattributes"] = []byte(ga.String())
	}
	r.Files = files
	h.mu.Lock()
	defer h.mu.Unlock()
	h.repos[key(r.Type, r.ID)] = &repo{Repo: r, lfs: lfs}
	return r.Commit
}

// Move renames repository from to to: requests for the old name get a 307
// to the same path under the new one, as the hub redirects renamed
// repositories.
func (h *Hub) Move(t RepoType, from, to string) {
	if t == "" {
		t = Model
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.moved[key(t, from)] = to
}

// Requests returns every request so far as "METHOD /escaped/path", in
// arrival order.
func (h *Hub) Requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

// RequestCount is len(Requests()).
func (h *Hub) RequestCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.requests)
}

// Downloads counts the GETs that sent a file's content (from resolve or,
// for LFS files, from the CDN), over all repositories.
func (h *Hub) Downloads() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.downloads {
		n += c
	}
	return n
}

// FileDownloads counts the GETs that sent the content of file in the
// repository.
func (h *Hub) FileDownloads(t RepoType, id, file string) int {
	if t == "" {
		t = Model
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.downloads[key(t, id)+"/"+file]
}

// GitBlobSHA1 is the ETag the hub gives a regular file: git's blob hash.
func GitBlobSHA1(b []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(b))
	s.Write(b)
	return hex.EncodeToString(s.Sum(nil))
}

// SHA256Hex is the ETag the hub gives an LFS file: its content's sha256.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// errorStatus writes an error answer with the hub's X-Error-Code and
// X-Error-Message headers ("" code: none, as for a bad token).
func errorStatus(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// ServeHTTP answers one request as the hub would.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	h.mu.Lock()
	h.requests = append(h.requests, r.Method+" "+path)
	token := h.token
	h.mu.Unlock()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		errorStatus(w, http.StatusMethodNotAllowed, "", "method not allowed")
		return
	}
	// The hub rejects a wrong token outright, whatever the repository.
	authorized := false
	if a := r.Header.Get("Authorization"); a != "" {
		if token == "" || a != "Bearer "+token {
			errorStatus(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
			return
		}
		authorized = true
	}
	switch {
	case strings.HasPrefix(path, CDNPrefix):
		h.serveCDN(w, r, strings.TrimPrefix(path, CDNPrefix))
	case strings.HasPrefix(path, "/api/models/"):
		h.serveAPI(w, r, Model, strings.TrimPrefix(path, "/api/models/"), authorized)
	case strings.HasPrefix(path, "/api/datasets/"):
		h.serveAPI(w, r, Dataset, strings.TrimPrefix(path, "/api/datasets/"), authorized)
	case strings.HasPrefix(path, "/datasets/"):
		h.serveResolve(w, r, Dataset, strings.TrimPrefix(path, "/datasets/"), authorized)
	default:
		h.serveResolve(w, r, Model, strings.TrimPrefix(path, "/"), authorized)
	}
}

// lookup finds the repository for a request, answering (and returning nil)
// when the request cannot go on: a redirect for a renamed repository, 404
// for an unknown one, 401 for a private one without the token.
func (h *Hub) lookup(w http.ResponseWriter, r *http.Request, t RepoType, id string, authorized bool) *repo {
	h.mu.Lock()
	to, moved := h.moved[key(t, id)]
	rp, ok := h.repos[key(t, id)]
	h.mu.Unlock()
	if moved {
		loc := strings.Replace(r.URL.EscapedPath(), "/"+id+"/", "/"+to+"/", 1)
		if strings.HasSuffix(r.URL.EscapedPath(), "/"+id) {
			loc = strings.TrimSuffix(r.URL.EscapedPath(), id) + to
		}
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusTemporaryRedirect)
		return nil
	}
	if !ok {
		errorStatus(w, http.StatusNotFound, "RepoNotFound", "Repository Not Found for url: "+r.URL.Path)
		return nil
	}
	if rp.Private && !authorized {
		errorStatus(w, http.StatusUnauthorized, "RepoNotFound", "Repository Not Found for url: "+r.URL.Path)
		return nil
	}
	return rp
}

// serveResolve answers {repo}/resolve/{rev}/{file}.
func (h *Hub) serveResolve(w http.ResponseWriter, r *http.Request, t RepoType, rest string, authorized bool) {
	id, after, ok := strings.Cut(rest, "/resolve/")
	if !ok || id == "" {
		errorStatus(w, http.StatusNotFound, "", "no such page")
		return
	}
	escRev, escFile, _ := strings.Cut(after, "/")
	rev, err1 := url.PathUnescape(escRev)
	file, err2 := url.PathUnescape(escFile)
	if err1 != nil || err2 != nil || file == "" {
		errorStatus(w, http.StatusBadRequest, "", "bad path")
		return
	}
	rp := h.lookup(w, r, t, id, authorized)
	if rp == nil {
		return
	}
	if rp.Gated && !authorized {
		errorStatus(w, http.StatusUnauthorized, "GatedRepo", "Access to "+string(t)+" "+id+" is restricted. You must have access to it and be authenticated to access it.")
		return
	}
	if rev != "main" && rev != rp.Commit {
		errorStatus(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	// From here on the hub names the commit, even for a missing file.
	w.Header().Set("X-Repo-Commit", rp.Commit)
	b, ok := rp.Files[file]
	if !ok {
		errorStatus(w, http.StatusNotFound, "EntryNotFound", "Entry not found")
		return
	}
	if rp.lfs[file] {
		sum := SHA256Hex(b)
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(b)))
		w.Header().Set("Location", CDNPrefix+t.prefix()+id+"/"+sum)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+GitBlobSHA1(b)+`"`)
	h.sendFile(w, r, key(t, id)+"/"+file, b)
}

// serveCDN answers the LFS redirect target {type prefix}{repo}/{sha256}.
// Like the real CDN's signed URLs it needs no token.
func (h *Hub) serveCDN(w http.ResponseWriter, r *http.Request, rest string) {
	t := Model
	if s, ok := strings.CutPrefix(rest, Dataset.prefix()); ok {
		t, rest = Dataset, s
	}
	i := strings.LastIndex(rest, "/")
	if i < 0 {
		errorStatus(w, http.StatusNotFound, "", "no such object")
		return
	}
	id, sum := rest[:i], rest[i+1:]
	h.mu.Lock()
	rp, ok := h.repos[key(t, id)]
	h.mu.Unlock()
	if ok {
		for name, b := range rp.Files {
			if rp.lfs[name] && SHA256Hex(b) == sum {
				w.Header().Set("ETag", `"`+sum+`"`)
				h.sendFile(w, r, key(t, id)+"/"+name, b)
				return
			}
		}
	}
	errorStatus(w, http.StatusNotFound, "", "no such object")
}

// sendFile writes a file's content (headers only for HEAD), counting GETs
// as downloads.
func (h *Hub) sendFile(w http.ResponseWriter, r *http.Request, dlKey string, b []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Header().Set("Accept-Ranges", "bytes")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		h.mu.Lock()
		h.downloads[dlKey]++
		h.mu.Unlock()
		w.Write(b)
	}
}

// serveAPI answers {repo}/revision/{rev} (and bare {repo}, meaning main)
// under /api/models/ or /api/datasets/: the commit and the file list.
func (h *Hub) serveAPI(w http.ResponseWriter, r *http.Request, t RepoType, rest string, authorized bool) {
	id, escRev, hasRev := strings.Cut(rest, "/revision/")
	rev := "main"
	if hasRev {
		var err error
		if rev, err = url.PathUnescape(escRev); err != nil || rev == "" {
			errorStatus(w, http.StatusBadRequest, "", "bad revision")
			return
		}
	}
	rp := h.lookup(w, r, t, id, authorized)
	if rp == nil {
		return
	}
	if rev != "main" && rev != rp.Commit {
		errorStatus(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
	}
	sib := make([]sibling, 0, len(rp.Files))
	for _, name := range slices.Sorted(maps.Keys(rp.Files)) {
		sib = append(sib, sibling{name})
	}
	var gated any = false
	if rp.Gated {
		gated = "auto"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": id, "sha": rp.Commit, "private": rp.Private, "gated": gated, "siblings": sib,
	})
}
