//go:build !unix

package cli

// ensureFileLimit has nothing to check where there is no RLIMIT_NOFILE.
func ensureFileLimit(int) error { return nil }
