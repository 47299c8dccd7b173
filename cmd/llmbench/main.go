// Command llmbench measures how fast an LLM serving endpoint streams tokens.
package main

import (
	"context"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/internal/cli"
)

// sameInterrupt is how long after a Ctrl-C another counts as the same
// one: far below a person's second press, far above the gap between the
// copies one signal reaches a process by.
const sameInterrupt = 250 * time.Millisecond

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels ctx (the run stops sending, lets requests in
	// flight finish briefly and saves what it measured); restoring the
	// default handling then lets a second Ctrl-C quit at once. Not at once:
	// signals that arrive together are one Ctrl-C (timeout(1) sends SIGINT
	// to the process and again to its group, milliseconds apart), so the
	// default comes back after sameInterrupt.
	context.AfterFunc(ctx, func() { time.AfterFunc(sameInterrupt, stop) })
	stopProfile := startProfile()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// run is llmbench in this process: cli.Main, with the standard log
// silenced first. Nothing of llmbench's writes there, but net/http does on
// its own: a server's stray bytes on an idle kept connection ("Unsolicited
// response received on idle HTTP channel starting with ..."), unredacted
// and without a line's prefix, in the middle of the progress line. The
// https:// path must say no more than the http:// one, whose transport
// closes such a connection without a word (docs/transport.md).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log.SetOutput(io.Discard)
	return cli.Main(ctx, version, args, stdin, stdout, stderr)
}
