// Command llmbench measures how fast an LLM serving endpoint streams tokens.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/llmbench/llmbench/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, version, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
