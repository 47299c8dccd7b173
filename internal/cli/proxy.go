package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/eventstream"
	"github.com/llmbench/llmbench/internal/proxy"
	"github.com/llmbench/llmbench/internal/sim"
)

func newProxyCmd(env *Env) *cobra.Command {
	var (
		upstream, listen, partSize, route string
		headers                           []string
		allowRemote                       bool
		exitAfter                         time.Duration
		seed                              uint64
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
			if upstream == "" {
				return usageErrorf("--upstream is required (the OpenAI-compatible server's base URL)")
			}
			ps, err := eventstream.ParsePartSize(partSize)
			if err != nil {
				return &UsageError{Err: err}
			}
			if err := sim.CheckListenAddr(listen, allowRemote); err != nil {
				return &UsageError{Err: err}
			}
			hdr := http.Header{}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return usageErrorf("--upstream-header %s: want \"Name: value\"", redactHeader(h))
				}
				hdr.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			}
			cfg := proxy.Config{Upstream: upstream, Route: route, PartSize: ps, Seed: seed, Header: hdr}
			if _, err := proxy.New(cfg); err != nil {
				return &UsageError{Err: err}
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("proxy: %v", err)
			}
			run, err := proxy.Start(cfg, ln)
			if err != nil {
				return &UsageError{Err: err}
			}
			shown := upstream // without a password it may carry
			if u, err := url.Parse(upstream); err == nil {
				shown = u.Redacted()
			}
			fmt.Fprintf(env.Stdout, "llmbench proxy: SageMaker Runtime on %s -> %s (part size %s)\n", run.URL, shown, ps)
			ctx := cmd.Context()
			if exitAfter > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, exitAfter)
				defer cancel()
			}
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := run.Stop(sctx); err != nil {
				return fmt.Errorf("proxy: shutdown: %v", err)
			}
			fmt.Fprintln(env.Stdout, "llmbench proxy: stopped")
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&upstream, "upstream", "", "base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&listen, "listen", "127.0.0.1:8080", "address to listen on (port 0 = any free port)")
	fs.BoolVar(&allowRemote, "allow-remote", false, "allow a non-loopback --listen address (the proxy checks no credentials)")
	fs.StringVar(&partSize, "part-size", "4096", "PayloadPart size in bytes (1, 7, 4096, ...) or random")
	fs.Uint64Var(&seed, "seed", 0, "seed for --part-size random")
	fs.StringVar(&route, "route", proxy.RouteAuto, "upstream path: auto (messages => chat, else completions) or a fixed path such as /invocations")
	fs.StringArrayVar(&headers, "upstream-header", nil, "extra header for upstream requests, \"Name: value\" (repeatable)")
	fs.DurationVar(&exitAfter, "exit-after", 0, "stop after this long (0 = run until interrupted)")
	return cmd
}
