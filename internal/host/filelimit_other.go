//go:build !unix

package host

// EnsureFileLimit has nothing to check where there is no RLIMIT_NOFILE.
func EnsureFileLimit(int) error { return nil }
