package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/hfhub"
)

var (
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

// downloadDataset fetches the chosen data files of repo at rev into the
// cache through hfhub (huggingface_hub's layout, refs/REV recorded) and
// returns the local paths.
func downloadDataset(ctx context.Context, hub *hfhub.Client, repo hfhub.Repo, subset, split string, splitGiven bool) ([]string, error) {
	commit, names, err := hub.List(ctx, repo)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, f := range names {
		if isDataFile(f) {
			all = append(all, f)
		}
	}
	slices.Sort(all)
	files, err := selectFiles(all, subset, split, splitGiven)
	if err != nil {
		return nil, fmt.Errorf("hf dataset %s: %w", repo.ID, err)
	}
	// Pin every file to the listed commit so one snapshot is consistent.
	pinned := repo
	pinned.Revision = commit
	paths := make([]string, len(files))
	for i, f := range files {
		if paths[i], err = hub.File(ctx, pinned, f); err != nil {
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
	if !hfhub.ValidRepoID(cfg.Path) {
		return nil, nil, fmt.Errorf("hf dataset %q: no such file or folder, and not a dataset id like ORG/NAME", cfg.Path)
	}
	repo := hfhub.Repo{ID: cfg.Path, Type: hfhub.Dataset, Revision: cfg.HFRevision}
	hub := cfg.Hub
	if hub == nil {
		hub = hfhub.FromEnv(os.Getenv)
	}
	if snap, ok := hub.Snapshot(repo); ok {
		files, err := listDataFiles(snap)
		if err == nil {
			files, err = selectFiles(files, cfg.HFSubset, cfg.HFSplit, splitGiven)
		}
		if err == nil {
			return joinAll(snap, files), nil, nil
		}
		if hub.Offline {
			return nil, nil, fmt.Errorf("hf dataset %s in the cache %s: %v", repo.ID, hub.CacheDir, err)
		}
	}
	if hub.Offline {
		return nil, nil, fmt.Errorf("hf dataset %s is not in the Hugging Face cache %s and HF_HUB_OFFLINE is set, so it cannot be downloaded", repo.ID, hub.CacheDir)
	}
	paths, err := downloadDataset(ctx, hub, repo, cfg.HFSubset, cfg.HFSplit, splitGiven)
	if err != nil {
		return nil, nil, err // hfhub's errors name the dataset
	}
	return paths, []string{fmt.Sprintf("downloaded %d file(s) of dataset %s into %s", len(paths), repo.ID, hub.CacheDir)}, nil
}

func joinAll(dir string, rel []string) []string {
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(dir, filepath.FromSlash(r))
	}
	return out
}
