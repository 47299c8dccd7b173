package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/proxy"
	"github.com/llmbench/llmbench/internal/redact"
)

func newProxyCmd(env *Env) *cobra.Command {
	var (
		f         proxy.Settings
		exitAfter time.Duration
	)
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL",
		Short: "Emulate SageMaker Runtime in front of an OpenAI-compatible server",
		Long: `proxy answers the SageMaker Runtime API (InvokeEndpoint and
InvokeEndpointWithResponseStream at /endpoints/NAME/...) by forwarding each
body to an OpenAI-compatible server (a body with "messages" goes to
/v1/chat/completions, any other to /v1/completions, as vLLM's /invocations
does) and re-wrapping the response bytes as AWS event-stream PayloadParts of
--part-size bytes (or random sizes), forwarded as they arrive. Point a
SageMaker client at it (endpoint URL http://LISTEN) to check that the
SageMaker path reports the same text, usage and timings as the direct one.

Upstream errors come back as SageMaker does it: a non-200 answer as 424
ModelError carrying the original status and body, a connection that breaks
mid-stream as a ModelStreamError (StreamBroken) frame. No request signing
is checked.`,
		Args: argsBetween(0, 0, "takes flags only"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.Config()
			if he := (*proxy.HeaderError)(nil); errors.As(err, &he) {
				err = fmt.Errorf("--upstream-header %s: want \"Name: value\"", redact.HeaderItem(he.Item))
			}
			if err != nil {
				return &UsageError{Err: err}
			}
			ctx, cancel := withExitAfter(cmd.Context(), exitAfter)
			defer cancel()
			return proxy.Serve(ctx, cfg, f.Listen, env.Stdout)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Upstream, "upstream", "", "base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:8080", "address to listen on (port 0 = any free port)")
	fs.BoolVar(&f.AllowRemote, "allow-remote", false, "allow a non-loopback --listen address (the proxy checks no credentials)")
	fs.StringVar(&f.PartSize, "part-size", "4096", "PayloadPart size in bytes (1, 7, 4096, ...) or random")
	fs.Uint64Var(&f.Seed, "seed", 0, "seed for --part-size random")
	fs.StringVar(&f.Route, "route", proxy.RouteAuto, "upstream path: auto (messages => chat, else completions) or a fixed path such as /invocations")
	fs.StringArrayVar(&f.Headers, "upstream-header", nil, "extra header for upstream requests, \"Name: value\" (repeatable)")
	fs.DurationVar(&exitAfter, "exit-after", 0, "stop after this long (0 = run until interrupted)")
	return cmd
}

// withExitAfter is ctx ended after d as well (0: not).
func withExitAfter(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
