package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/hfhub"
)

var (
	repoIDRe  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$`)
	commitRe  = regexp.MustCompile(`^[0-9a-f]{40}$`)
	dataExts  = []string{".parquet", ".jsonl", ".json", ".jsonl.gz", ".json.gz"}
	metaFiles = []string{"dataset_info.json", "dataset_infos.json", "state.json", "dataset_dict.json"}
)

// isDataFile reports whether p looks like a data file of a dataset repo.
func isDataFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	if slices.Contains(metaFiles, base) || strings.HasPrefix(base, ".") {
		return false
	}
	for _, e := range dataExts {
		if strings.HasSuffix(base, e) {
			return true
		}
	}
	return false
}

// repoFolder is huggingface_hub's cache folder name for a dataset repo.
func repoFolder(repo string) string {
	return "datasets--" + strings.ReplaceAll(repo, "/", "--")
}

// snapshotFromCache returns the snapshot folder of repo at revision in the
// cache, or "" when the cache has none.
func snapshotFromCache(cache, repo, rev string) string {
	root := filepath.Join(cache, repoFolder(repo))
	commit := rev
	if !commitRe.MatchString(rev) {
		b, err := os.ReadFile(filepath.Join(root, "refs", filepath.FromSlash(rev)))
		if err != nil {
			return ""
		}
		commit = strings.TrimSpace(string(b))
	}
	snap := filepath.Join(root, "snapshots", commit)
	if st, err := os.Stat(snap); err != nil || !st.IsDir() {
		return ""
	}
	return snap
}

// listDataFiles lists data files under dir as slash-separated relative
// paths, sorted.
func listDataFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if isDataFile(rel) {
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// knownSplits are the split names recognised in file names.
var knownSplits = []string{"train", "test", "validation", "valid", "val", "dev", "eval"}

// nameTokens splits a path into the words HF's split patterns look at:
// directory names and the dash/underscore/dot-separated parts of the base.
func nameTokens(p string) []string {
	parts := strings.Split(p, "/")
	toks := append([]string(nil), parts[:len(parts)-1]...)
	toks = append(toks, strings.FieldsFunc(parts[len(parts)-1], func(r rune) bool {
		return r == '-' || r == '_' || r == '.'
	})...)
	return toks
}

// selectFiles picks the files of one subset and split, the way the datasets
// library's default patterns do: a file belongs to split S when S is one of
// its directory names or a dash/underscore/dot-separated word of its name;
// a subset is a directory (or leading name part). A repo whose files name no
// split at all is one "train" split.
func selectFiles(files []string, subset, split string, splitGiven bool) ([]string, error) {
	if len(files) == 0 {
		return nil, errors.New("no data files (.parquet, .jsonl, .json) found")
	}
	if subset != "" {
		var keep []string
		for _, f := range files {
			toks := nameTokens(f)
			if slices.Contains(toks[:len(strings.Split(f, "/"))-1], subset) || strings.HasPrefix(path.Base(f), subset) {
				keep = append(keep, f)
			}
		}
		if len(keep) == 0 {
			return nil, fmt.Errorf("no data files for subset %q (files: %s)", subset, summarize(files))
		}
		files = keep
	}
	var keep []string
	anySplit := false
	for _, f := range files {
		toks := nameTokens(f)
		if slices.Contains(toks, split) {
			keep = append(keep, f)
		}
		for _, s := range knownSplits {
			if slices.Contains(toks, s) {
				anySplit = true
			}
		}
	}
	if len(keep) > 0 {
		return keep, nil
	}
	if !anySplit && (!splitGiven || split == "train") {
		return files, nil
	}
	return nil, fmt.Errorf("no data files for split %q (files: %s)", split, summarize(files))
}

func summarize(files []string) string {
	if len(files) > 8 {
		return strings.Join(files[:8], ", ") + fmt.Sprintf(", ... (%d files)", len(files))
	}
	return strings.Join(files, ", ")
}

// hubRevision is the part of GET /api/datasets/{repo}/revision/{rev} we
// use: the commit and the repository's file list.
type hubRevision struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		RFilename string `json:"rfilename"`
	} `json:"siblings"`
}

// maxHubJSON bounds the repo-info response.
const maxHubJSON = 32 << 20

// listRepo asks the hub for the commit of rev and the repository's files
// (hfhub fetches single files but does not list them).
func listRepo(ctx context.Context, hub *hfhub.Client, repo, rev string) (hubRevision, error) {
	var info hubRevision
	u := fmt.Sprintf("%s/api/datasets/%s/revision/%s", strings.TrimRight(hub.Endpoint, "/"), repo, url.PathEscape(rev))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return info, err
	}
	if hub.Token != "" {
		req.Header.Set("Authorization", "Bearer "+hub.Token)
	}
	hc := hub.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return info, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return info, fmt.Errorf("listing files: HTTP %d: the dataset is gated or private; accept its terms on the hub and set HF_TOKEN", resp.StatusCode)
	case http.StatusNotFound:
		return info, fmt.Errorf("listing files: HTTP 404: no such dataset or revision %q", rev)
	default:
		return info, fmt.Errorf("listing files: hub answered HTTP %d", resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxHubJSON)).Decode(&info); err != nil {
		return info, fmt.Errorf("listing files: bad JSON from the hub: %v", err)
	}
	if !commitRe.MatchString(info.SHA) {
		return info, errors.New("listing files: the hub's answer has no commit sha")
	}
	return info, nil
}

// downloadDataset fetches the chosen data files of repo at rev into the
// cache (through hfhub, so the layout is huggingface_hub's), records
// refs/REV, and returns the local paths.
func downloadDataset(ctx context.Context, hub *hfhub.Client, repo, rev, subset, split string, splitGiven bool) ([]string, error) {
	info, err := listRepo(ctx, hub, repo, rev)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, s := range info.Siblings {
		if isDataFile(s.RFilename) && !strings.Contains(s.RFilename, "..") {
			all = append(all, s.RFilename)
		}
	}
	slices.Sort(all)
	files, err := selectFiles(all, subset, split, splitGiven)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		// Pin every file to the listed commit so one snapshot is consistent.
		p, err := hub.File(ctx, hfhub.Repo{ID: repo, Type: hfhub.Dataset, Revision: info.SHA}, f)
		if err != nil {
			return nil, err
		}
		paths[i] = p
	}
	if rev != info.SHA && !strings.Contains(rev, "..") {
		ref := filepath.Join(hub.CacheDir, repoFolder(repo), "refs", filepath.FromSlash(rev))
		if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(ref, []byte(info.SHA), 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// resolveHFFiles finds the data files for cfg: a local file or folder, the
// cache's snapshot of ORG/NAME, or a download into the cache. It returns
// file paths and warnings.
func resolveHFFiles(ctx context.Context, cfg Config) ([]string, []string, error) {
	splitGiven := cfg.HFSplit != "train"
	if st, err := os.Stat(cfg.Path); err == nil {
		if !st.IsDir() {
			return []string{cfg.Path}, nil, nil
		}
		files, err := listDataFiles(cfg.Path)
		if err == nil {
			files, err = selectFiles(files, cfg.HFSubset, cfg.HFSplit, splitGiven)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", cfg.Path, err)
		}
		return joinAll(cfg.Path, files), nil, nil
	}
	repo := cfg.Path
	if !hfhub.ValidRepoID(repo) || !repoIDRe.MatchString(repo) {
		return nil, nil, fmt.Errorf("hf dataset %q: no such file or folder, and not a dataset id like ORG/NAME", repo)
	}
	hub := cfg.Hub
	if hub == nil {
		hub = hfhub.FromEnv(os.Getenv)
	}
	rev := cfg.HFRevision
	if rev == "" {
		rev = "main"
	}
	if snap := snapshotFromCache(hub.CacheDir, repo, rev); snap != "" {
		files, err := listDataFiles(snap)
		if err == nil {
			files, err = selectFiles(files, cfg.HFSubset, cfg.HFSplit, splitGiven)
		}
		if err == nil {
			return joinAll(snap, files), nil, nil
		}
		if hub.Offline {
			return nil, nil, fmt.Errorf("hf dataset %s in the cache %s: %v", repo, hub.CacheDir, err)
		}
	}
	if hub.Offline {
		return nil, nil, fmt.Errorf("hf dataset %s is not in the Hugging Face cache %s and HF_HUB_OFFLINE is set, so it cannot be downloaded", repo, hub.CacheDir)
	}
	paths, err := downloadDataset(ctx, hub, repo, rev, cfg.HFSubset, cfg.HFSplit, splitGiven)
	if err != nil {
		return nil, nil, fmt.Errorf("hf dataset %s: %w", repo, err)
	}
	return paths, []string{fmt.Sprintf("downloaded %d file(s) of dataset %s into %s", len(paths), repo, hub.CacheDir)}, nil
}

func joinAll(dir string, rel []string) []string {
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(dir, filepath.FromSlash(r))
	}
	return out
}
