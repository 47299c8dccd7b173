package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
	"github.com/llmbench/llmbench/internal/sim"
)

// Settings are what `llmbench proxy` is given, as typed: Config checks
// them and makes the proxy's Config.
type Settings struct {
	// Upstream is Config.Upstream; required.
	Upstream string
	// Listen is where the proxy serves; AllowRemote lets it be a
	// non-loopback address (sim.CheckListenAddr: no credentials are
	// checked).
	Listen      string
	AllowRemote bool
	// PartSize is Config.PartSize as eventstream.ParsePartSize reads it.
	PartSize string
	// Route and Seed are Config's.
	Route string
	Seed  uint64
	// Headers are extra upstream headers, "Name: value" each.
	Headers []string
}

// HeaderError is a Settings.Headers item that is not "Name: value".
// It carries the item whole, which may hold a credential: whoever shows
// it hides the value.
type HeaderError struct{ Item string }

func (e *HeaderError) Error() string { return "header item: want \"Name: value\"" }

// Config checks s, in the order of the command's flags, and returns the
// proxy's Config. Every error is one of the settings given.
func (s *Settings) Config() (Config, error) {
	if s.Upstream == "" {
		return Config{}, errors.New("--upstream is required (the OpenAI-compatible server's base URL)")
	}
	ps, err := eventstream.ParsePartSize(s.PartSize)
	if err != nil {
		return Config{}, err
	}
	if err := sim.CheckListenAddr(s.Listen, s.AllowRemote); err != nil {
		return Config{}, err
	}
	hdr := http.Header{}
	for _, h := range s.Headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return Config{}, &HeaderError{Item: h}
		}
		hdr.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	cfg := Config{Upstream: s.Upstream, Route: s.Route, PartSize: ps, Seed: s.Seed, Header: hdr}
	if _, err := New(cfg); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Serve serves cfg (checked by New) at listen until ctx ends, saying on
// out where it serves (the upstream without a password it may carry) and
// that it stopped; open streams get 5 seconds to finish.
func Serve(ctx context.Context, cfg Config, listen string, out io.Writer) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	run, err := Start(cfg, ln)
	if err != nil {
		return err
	}
	shown := cfg.Upstream
	if u, err := url.Parse(cfg.Upstream); err == nil {
		shown = u.Redacted()
	}
	fmt.Fprintf(out, "llmbench proxy: SageMaker Runtime on %s -> %s (part size %s)\n", run.URL, shown, cfg.PartSize)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := run.Stop(sctx); err != nil {
		return fmt.Errorf("proxy: shutdown: %v", err)
	}
	fmt.Fprintln(out, "llmbench proxy: stopped")
	return nil
}
