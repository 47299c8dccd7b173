package merge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/savedfile"
)

// WorkerRecordsGlob matches the records files workers save under their
// default result names (RUNID-worker-I.json, with --save-detailed).
const WorkerRecordsGlob = "*-worker-*.records.jsonl"

// ExpandFolders replaces folder arguments with the worker records files
// they hold, so that a shell-less container (Kubernetes,
// docs/distributed.md) can merge a folder without a glob.
func ExpandFolders(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, WorkerRecordsGlob))
		if err != nil || len(found) == 0 {
			return nil, fmt.Errorf("%s holds no worker records (%s): run the workers with --save-detailed and their default result names", a, WorkerRecordsGlob)
		}
		files = append(files, found...)
	}
	return files, nil
}

// RecordsPath is where one worker's records are: the file itself when it
// is a records file, else the records file saved beside a result JSON
// (NAME.json -> NAME.records.jsonl). A result without one is a summary
// that cannot be merged.
func RecordsPath(path string) (string, error) {
	k, err := savedfile.Sniff(path)
	if err != nil {
		return "", err
	}
	if k == savedfile.Records {
		return path, nil
	}
	recPath := record.BesideResult(path)
	if _, err := os.Stat(recPath); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is a summary without per-request records (no %s): run the workers with --save-detailed or --save-records and merge those", path, filepath.Base(recPath))
	}
	return recPath, nil
}

// Unique drops the paths that name a file listed before them (the same
// path again, a link to it): one file is one worker's share, and
// "llmbench merge w*/*" lists a result JSON beside its own records file.
func Unique(paths []string) ([]string, error) {
	out := paths[:0:0]
	var seen []os.FileInfo
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(s, st) }) {
			continue
		}
		seen = append(seen, st)
		out = append(out, p)
	}
	return out, nil
}

// ReadInput reads one worker's records file: its header (worker block,
// anchor), its final params and its records.
func ReadInput(recPath string) (*Input, error) {
	f, err := os.Open(recPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := record.ReadHeader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", recPath, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	p, recs, _, err := record.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", recPath, err)
	}
	return &Input{Name: recPath, Header: h, Params: p, Records: recs}, nil
}

// ReadWorkers reads the workers' records that args name: records files,
// results with their records beside them, or folders of workers' records
// files; a file named twice (or through a link) counts once.
func ReadWorkers(args []string) ([]Input, error) {
	files, err := ExpandFolders(args)
	if err != nil {
		return nil, err
	}
	for i, a := range files {
		if files[i], err = RecordsPath(a); err != nil {
			return nil, err
		}
	}
	if files, err = Unique(files); err != nil {
		return nil, err
	}
	inputs := make([]Input, 0, len(files))
	for _, a := range files {
		in, err := ReadInput(a)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, *in)
	}
	return inputs, nil
}
