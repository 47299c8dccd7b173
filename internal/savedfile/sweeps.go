package savedfile

import "fmt"

// AllSweeps tells compare's two modes apart by the files' content (Sniff):
// true when every path holds a sweep (candidates for one deployment),
// false when none does (result files, Δ%). Paths that mix the two, or a
// file that cannot be read, are an error.
func AllSweeps(paths []string) (bool, error) {
	n, err := Count(paths, Sweep)
	if err != nil {
		return false, err
	}
	if n > 0 && n < len(paths) {
		return false, fmt.Errorf("compare takes result files or sweep files, not both (%d of %d are sweeps)", n, len(paths))
	}
	return n > 0, nil
}
