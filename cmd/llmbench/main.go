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
	// The first Ctrl-C cancels ctx (the run stops sending, lets requests in
	// flight finish briefly and saves what it measured); restoring the
	// default handling then lets a second Ctrl-C quit at once.
	context.AfterFunc(ctx, stop)
	stopProfile := startProfile()
	code := cli.Main(ctx, version, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}
