// Package hfhub finds files of Hugging Face hub repositories (models and
// datasets) the way the Python huggingface_hub library does: first in the
// local cache (HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub, laid
// out as models--ORG--NAME/{refs,snapshots,blobs}), and only when absent by
// downloading from the hub (HF_ENDPOINT, HF_TOKEN) into that same layout, so
// Python tools find what llmbench fetched and the other way round.
//
// It refuses to download when HF_HUB_OFFLINE is set and never prints or
// stores the token.
package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/atomicfile"
)

// RepoType is the kind of hub repository.
type RepoType string

// The repository kinds llmbench reads.
const (
	Model   RepoType = "model"
	Dataset RepoType = "dataset"
)

// Repo names a hub repository at a revision.
type Repo struct {
	// ID is "ORG/NAME" (or a bare "NAME" for old canonical repos).
	ID string
	// Type is Model or Dataset; "" means Model.
	Type RepoType
	// Revision is a branch, tag or commit hash; "" means "main".
	Revision string
}

func (r Repo) typ() RepoType {
	if r.Type == "" {
		return Model
	}
	return r.Type
}

func (r Repo) revision() string {
	if r.Revision == "" {
		return "main"
	}
	return r.Revision
}

// folder is the repository's folder name in the cache:
// models--ORG--NAME or datasets--ORG--NAME.
func (r Repo) folder() string {
	return string(r.typ()) + "s--" + strings.ReplaceAll(r.ID, "/", "--")
}

// ErrNotFound reports that the repository has no such file (or no such
// repository or revision). Callers use it for optional files.
var ErrNotFound = errors.New("not found on the Hugging Face hub")

// DefaultEndpoint is the public hub.
const DefaultEndpoint = "https://huggingface.co"

// Client reads and fills the Hugging Face cache. The zero value is not
// usable; build one with FromEnv and adjust fields.
type Client struct {
	// Endpoint is the hub's base URL (HF_ENDPOINT); default DefaultEndpoint.
	Endpoint string
	// Token is sent as a bearer token when set (HF_TOKEN). Never printed.
	Token string
	// CacheDir is the hub cache folder (HF_HUB_CACHE, HF_HOME/hub,
	// $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub).
	CacheDir string
	// Offline forbids downloads (HF_HUB_OFFLINE=1).
	Offline bool
	// HTTP is the client used for downloads; nil means one with a 10-minute
	// overall timeout per file that also gives up when a server accepts
	// the connection but sends no response headers within HeaderTimeout.
	HTTP *http.Client
	// HeaderTimeout bounds the wait for each response's headers when HTTP
	// is nil; 0 means DefaultHeaderTimeout.
	HeaderTimeout time.Duration
}

// DefaultHeaderTimeout is how long the default download client waits for a
// response's headers: the hub answers in well under a second.
const DefaultHeaderTimeout = 30 * time.Second

// DefaultFileTimeout bounds one file's whole download with the default
// client.
const DefaultFileTimeout = 10 * time.Minute

// FromEnv builds a Client from the environment variables huggingface_hub
// reads; getenv is os.Getenv in production.
func FromEnv(getenv func(string) string) *Client {
	c := &Client{
		Endpoint: strings.TrimRight(getenv("HF_ENDPOINT"), "/"),
		Token:    getenv("HF_TOKEN"),
		CacheDir: getenv("HF_HUB_CACHE"),
	}
	if c.Endpoint == "" {
		c.Endpoint = DefaultEndpoint
	}
	if c.Token == "" {
		c.Token = readTokenFile(getenv)
	}
	switch strings.ToLower(getenv("HF_HUB_OFFLINE")) {
	case "1", "true", "yes", "on":
		c.Offline = true
	}
	if c.CacheDir == "" {
		c.CacheDir = filepath.Join(hfHome(getenv), "hub")
	}
	return c
}

// hfHome is HF_HOME, else $XDG_CACHE_HOME/huggingface, else
// ~/.cache/huggingface.
func hfHome(getenv func(string) string) string {
	if h := getenv("HF_HOME"); h != "" {
		return h
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "huggingface")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".cache", "huggingface")
}

// readTokenFile reads the token `huggingface-cli login` saved
// (HF_TOKEN_PATH or HF_HOME/token).
func readTokenFile(getenv func(string) string) string {
	p := getenv("HF_TOKEN_PATH")
	if p == "" {
		p = filepath.Join(hfHome(getenv), "token")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

var (
	repoIDRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$`)
	commitRe = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ValidRepoID reports whether id has the shape of a hub repository id.
func ValidRepoID(id string) bool {
	return len(id) <= 96 && repoIDRe.MatchString(id) && !strings.Contains(id, "..") && !strings.Contains(id, "--")
}

// validFilename rejects file names that could escape the snapshot folder.
func validFilename(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// snapshot resolves repo's revision in the cache: the commit (read from
// refs/ for a branch or tag) and its snapshot folder, which exists when ok.
// commit is "" when the revision cannot name a folder in the cache.
func (c *Client) snapshot(repo Repo) (dir, commit string, ok bool) {
	rev := repo.revision()
	if !ValidRepoID(repo.ID) || !validFilename(rev) {
		return "", "", false // "../x" would read outside the cache
	}
	root := filepath.Join(c.CacheDir, repo.folder())
	commit = rev
	if !commitRe.MatchString(rev) {
		if b, err := os.ReadFile(filepath.Join(root, "refs", filepath.FromSlash(rev))); err == nil {
			commit = strings.TrimSpace(string(b))
		}
	}
	if !validFilename(commit) {
		return "", "", false
	}
	dir = filepath.Join(root, "snapshots", filepath.FromSlash(commit))
	return dir, commit, dirExists(dir)
}

// Snapshot returns the folder of repo's snapshot at its revision in the
// local cache, and whether the cache has one.
func (c *Client) Snapshot(repo Repo) (string, bool) {
	dir, _, ok := c.snapshot(repo)
	return dir, ok
}

// Cached returns the path of filename in the local cache. found is false
// when the cache does not have it; absent is true when the cache records
// that the hub has no such file (huggingface_hub's .no_exist marker).
func (c *Client) Cached(repo Repo, filename string) (p string, found, absent bool) {
	if !validFilename(filename) {
		return "", false, false
	}
	dir, commit, ok := c.snapshot(repo)
	if !ok && !commitRe.MatchString(commit) {
		return "", false, false
	}
	file := filepath.Join(dir, filepath.FromSlash(filename))
	if st, err := os.Stat(file); err == nil && !st.IsDir() {
		return file, true, false
	}
	if _, err := os.Stat(filepath.Join(c.CacheDir, repo.folder(), ".no_exist", commit, filepath.FromSlash(filename))); err == nil {
		return "", false, true
	}
	return "", false, false
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// File returns the local path of filename in repo: from the cache when
// there, otherwise downloaded into the cache. A file the hub does not have
// gives an error wrapping ErrNotFound.
func (c *Client) File(ctx context.Context, repo Repo, filename string) (string, error) {
	if !ValidRepoID(repo.ID) {
		return "", fmt.Errorf("%q is not a valid hub repository id", repo.ID)
	}
	if !validFilename(filename) {
		return "", fmt.Errorf("%q is not a valid file name", filename)
	}
	if !validFilename(repo.revision()) {
		return "", fmt.Errorf("%q is not a valid revision", repo.revision())
	}
	if p, found, absent := c.Cached(repo, filename); found {
		return p, nil
	} else if absent {
		return "", fmt.Errorf("%s %s@%s has no %s (per the cache in %s): %w", repo.typ(), repo.ID, repo.revision(), filename, c.CacheDir, ErrNotFound)
	}
	if c.Offline {
		return "", fmt.Errorf("%s %s@%s: %s is not in the Hugging Face cache (%s) and HF_HUB_OFFLINE is set, so it cannot be downloaded",
			repo.typ(), repo.ID, repo.revision(), filename, c.CacheDir)
	}
	p, err := c.download(ctx, repo, filename)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", err
		}
		return "", fmt.Errorf("%s %s@%s: %s is not in the Hugging Face cache (%s) and downloading it failed: %w",
			repo.typ(), repo.ID, repo.revision(), filename, c.CacheDir, err)
	}
	return p, nil
}

// maxListJSON bounds the hub's answer to List.
const maxListJSON = 32 << 20

// List asks the hub which commit repo's revision is at and which files the
// repository holds (GET /api/{models,datasets}/ID/revision/REV), and
// records the revision's ref in the cache as a download does. Names that
// could leave a snapshot folder are dropped. A repository or revision the
// hub does not have gives an error wrapping ErrNotFound.
func (c *Client) List(ctx context.Context, repo Repo) (commit string, files []string, err error) {
	rev := repo.revision()
	if !ValidRepoID(repo.ID) {
		return "", nil, fmt.Errorf("%q is not a valid hub repository id", repo.ID)
	}
	if !validFilename(rev) {
		return "", nil, fmt.Errorf("%q is not a valid revision", rev)
	}
	where := fmt.Sprintf("%s %s@%s", repo.typ(), repo.ID, rev)
	if c.Offline {
		return "", nil, fmt.Errorf("%s: listing files needs the hub and HF_HUB_OFFLINE is set", where)
	}
	u := fmt.Sprintf("%s/api/%ss/%s/revision/%s", strings.TrimRight(c.Endpoint, "/"), repo.typ(), repo.ID, url.PathEscape(rev))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, err
	}
	c.authorize(req)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("%s: listing files: %w", where, err)
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		return "", nil, fmt.Errorf("%s: listing files: %w", where, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("%s: listing files: hub answered HTTP %d", where, resp.StatusCode)
	}
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxListJSON)).Decode(&info); err != nil {
		return "", nil, fmt.Errorf("%s: listing files: bad JSON from the hub: %v", where, err)
	}
	if !commitRe.MatchString(info.SHA) {
		return "", nil, fmt.Errorf("%s: listing files: the hub's answer has no commit sha", where)
	}
	for _, sb := range info.Siblings {
		if validFilename(sb.RFilename) {
			files = append(files, sb.RFilename)
		}
	}
	if rev != info.SHA {
		if err := writeRef(filepath.Join(c.CacheDir, repo.folder()), rev, info.SHA); err != nil {
			return "", nil, err
		}
	}
	return info.SHA, files, nil
}

// resolveURL is the hub's download URL for a file at a revision.
func (c *Client) resolveURL(repo Repo, filename string) string {
	prefix := ""
	if repo.typ() == Dataset {
		prefix = "datasets/"
	}
	return fmt.Sprintf("%s/%s%s/resolve/%s/%s", strings.TrimRight(c.Endpoint, "/"), prefix, repo.ID,
		url.PathEscape(repo.revision()), escapePath(filename))
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	ht := c.HeaderTimeout
	if ht <= 0 {
		ht = DefaultHeaderTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = ht
	return &http.Client{Timeout: DefaultFileTimeout, Transport: tr}
}

// fileMeta is what the hub's HEAD answer says about a file.
type fileMeta struct {
	commit string
	etag   string
}

// head asks the hub for the file's commit and etag, following only the
// same-host redirects the hub uses for renamed repositories (a redirect to
// a CDN carries the metadata in the redirect response itself).
func (c *Client) head(ctx context.Context, rawURL string) (fileMeta, error) {
	hc := *c.httpClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for range 5 {
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, rawURL, nil)
		if err != nil {
			return fileMeta{}, err
		}
		c.authorize(req)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := hc.Do(req)
		if err != nil {
			return fileMeta{}, err
		}
		resp.Body.Close()
		meta := fileMeta{commit: resp.Header.Get("X-Repo-Commit"), etag: normalizeETag(resp.Header.Get("X-Linked-Etag"))}
		if err := statusError(resp); err != nil {
			return meta, err
		}
		if meta.etag == "" {
			meta.etag = normalizeETag(resp.Header.Get("ETag"))
		}
		if resp.StatusCode >= 300 && resp.StatusCode < 400 && meta.commit == "" {
			loc, err := resp.Location()
			if err != nil {
				return fileMeta{}, fmt.Errorf("redirect without location: %w", err)
			}
			// The next HEAD carries the token: never to another host.
			if loc.Scheme != req.URL.Scheme || loc.Host != req.URL.Host {
				return fileMeta{}, fmt.Errorf("hub redirected to another host (%s) without the file's commit; not following it with the token", loc.Host)
			}
			rawURL = loc.String()
			continue
		}
		return meta, nil
	}
	return fileMeta{}, errors.New("too many redirects")
}

func (c *Client) authorize(req *http.Request) {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	req.Header.Set("User-Agent", "llmbench (huggingface_hub-compatible cache)")
}

func normalizeETag(e string) string {
	e = strings.TrimPrefix(e, "W/")
	return strings.Trim(e, `"`)
}

// statusError turns the hub's error answers into clear messages.
func statusError(resp *http.Response) error {
	switch code := resp.StatusCode; {
	case code < 400:
		return nil
	case code == http.StatusNotFound:
		msg := "no such repository, revision or file"
		switch resp.Header.Get("X-Error-Code") {
		case "EntryNotFound":
			msg = "no such file in the repository"
		case "RevisionNotFound":
			msg = "no such revision"
		case "RepoNotFound":
			msg = "no such repository (or it is private: set HF_TOKEN)"
		}
		return fmt.Errorf("%s: %w", msg, ErrNotFound)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("access denied (HTTP %d): the repository is gated or private; accept its terms on the hub and set HF_TOKEN", code)
	default:
		return fmt.Errorf("hub answered HTTP %d", code)
	}
}

// download fetches filename into blobs/ and links it from snapshots/.
func (c *Client) download(ctx context.Context, repo Repo, filename string) (string, error) {
	u := c.resolveURL(repo, filename)
	meta, err := c.head(ctx, u)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			if commitRe.MatchString(meta.commit) {
				// The repository and revision exist; remember the file
				// does not, as huggingface_hub does.
				c.markAbsent(repo, meta.commit, filename)
				if rev := repo.revision(); rev != meta.commit {
					_ = writeRef(filepath.Join(c.CacheDir, repo.folder()), rev, meta.commit)
				}
			}
			return "", fmt.Errorf("%s %s@%s: %s: %w", repo.typ(), repo.ID, repo.revision(), filename, err)
		}
		return "", err
	}
	if !commitRe.MatchString(meta.commit) {
		return "", fmt.Errorf("hub gave no commit hash for %s (X-Repo-Commit %q)", u, meta.commit)
	}
	if meta.etag == "" || strings.ContainsAny(meta.etag, `/\`) || meta.etag == "." || meta.etag == ".." {
		return "", fmt.Errorf("hub gave no usable ETag for %s", u)
	}
	root := filepath.Join(c.CacheDir, repo.folder())
	blob := filepath.Join(root, "blobs", meta.etag)
	if _, err := os.Stat(blob); err != nil {
		if err := c.fetchBlob(ctx, u, blob, meta.etag); err != nil {
			return "", err
		}
	}
	snap := filepath.Join(root, "snapshots", meta.commit, filepath.FromSlash(filename))
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		return "", err
	}
	if err := linkBlob(blob, snap); err != nil {
		return "", err
	}
	if rev := repo.revision(); rev != meta.commit {
		if err := writeRef(root, rev, meta.commit); err != nil {
			return "", err
		}
	}
	return snap, nil
}

// fetchBlob downloads url into blob via a temporary file; an etag that is a
// sha256 (LFS files) is checked against the content.
func (c *Client) fetchBlob(ctx context.Context, rawURL, blob, etag string) error {
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return err
	}
	c.authorize(req)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("hub answered HTTP %d", resp.StatusCode)
	}
	tmp, err := os.CreateTemp(filepath.Dir(blob), filepath.Base(blob)+".*.incomplete")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download interrupted after %d bytes: %w", n, err)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return fmt.Errorf("download truncated: got %d of %d bytes", n, resp.ContentLength)
	}
	if isSHA256(etag) {
		if sum := hex.EncodeToString(h.Sum(nil)); sum != etag {
			return fmt.Errorf("downloaded file has sha256 %s, hub said %s", sum, etag)
		}
	}
	return os.Rename(tmp.Name(), blob)
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// linkBlob points snap at blob with a relative symlink, as huggingface_hub
// does; where symlinks fail it copies.
func linkBlob(blob, snap string) error {
	rel, err := filepath.Rel(filepath.Dir(snap), blob)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(snap); err == nil {
		if err := os.Remove(snap); err != nil {
			return err
		}
	}
	if err := os.Symlink(rel, snap); err == nil {
		return nil
	}
	data, err := os.ReadFile(blob)
	if err != nil {
		return err
	}
	// Whole or not at all: a run killed mid-copy must not leave a
	// truncated tokenizer.json that the next, offline run would read.
	return atomicfile.Write(snap, 0o644, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// writeRef records that revision rev (a branch or tag) is at commit.
func writeRef(root, rev, commit string) error {
	if !validFilename(rev) {
		return nil // an odd revision name is still usable, just not cached by name
	}
	p := filepath.Join(root, "refs", filepath.FromSlash(rev))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, commit); return err })
}

// markAbsent records in the cache that the hub has no filename at the
// revision's commit, so later offline runs know without asking.
func (c *Client) markAbsent(repo Repo, commit, filename string) {
	p := filepath.Join(c.CacheDir, repo.folder(), ".no_exist", commit, filepath.FromSlash(filename))
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		_ = os.WriteFile(p, nil, 0o644)
	}
}
