package cli

import "os"

// osGetenv is the real environment lookup; only Main uses it.
func osGetenv(key string) string { return os.Getenv(key) }
