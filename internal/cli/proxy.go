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

// proxyFlags holds `llmbench proxy`'s flag values.
type proxyFlags struct {
	upstream, listen, partSize, route string
	headers                           []string
	allowRemote                       bool
	exitAfter                         time.Duration
	seed                              uint64
}

func newProxyCmd(env *Env) *cobra.Command {
	f := &proxyFlags{}
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runProxy(cmd.Context(), env, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.upstream, "upstream", "", "base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on (port 0 = any free port)")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --listen address (the proxy checks no credentials)")
	fs.StringVar(&f.partSize, "part-size", "4096", "PayloadPart size in bytes (1, 7, 4096, ...) or random")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for --part-size random")
	fs.StringVar(&f.route, "route", proxy.RouteAuto, "upstream path: auto (messages => chat, else completions) or a fixed path such as /invocations")
	fs.StringArrayVar(&f.headers, "upstream-header", nil, "extra header for upstream requests, \"Name: value\" (repeatable)")
	fs.DurationVar(&f.exitAfter, "exit-after", 0, "stop after this long (0 = run until interrupted)")
	return cmd
}

// proxyConfig resolves the flags; every error is a usage error.
func proxyConfig(f *proxyFlags) (proxy.Config, error) {
	if f.upstream == "" {
		return proxy.Config{}, usageErrorf("--upstream is required (the OpenAI-compatible server's base URL)")
	}
	ps, err := eventstream.ParsePartSize(f.partSize)
	if err != nil {
		return proxy.Config{}, &UsageError{Err: err}
	}
	if err := sim.CheckListenAddr(f.listen, f.allowRemote); err != nil {
		return proxy.Config{}, &UsageError{Err: err}
	}
	hdr := http.Header{}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return proxy.Config{}, usageErrorf("--upstream-header %s: want \"Name: value\"", redactHeader(h))
		}
		hdr.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	cfg := proxy.Config{Upstream: f.upstream, Route: f.route, PartSize: ps, Seed: f.seed, Header: hdr}
	if _, err := proxy.New(cfg); err != nil {
		return proxy.Config{}, &UsageError{Err: err}
	}
	return cfg, nil
}

// runProxy serves until ctx ends or --exit-after passes.
func runProxy(ctx context.Context, env *Env, f *proxyFlags) error {
	cfg, err := proxyConfig(f)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	run, err := proxy.Start(cfg, ln)
	if err != nil {
		return &UsageError{Err: err}
	}
	shown := f.upstream // without a password it may carry
	if u, err := url.Parse(f.upstream); err == nil {
		shown = u.Redacted()
	}
	fmt.Fprintf(env.Stdout, "llmbench proxy: SageMaker Runtime on %s -> %s (part size %s)\n", run.URL, shown, cfg.PartSize)
	if f.exitAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.exitAfter)
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
}
