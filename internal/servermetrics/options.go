package servermetrics

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Options are what --server-metrics and its companions ask of a timed run
// or a sweep step, as given (docs/server-metrics.md).
type Options struct {
	// Spec is "auto" (the base URL's origin + /metrics) or
	// URL[,URL...] (ResolveURLs); "" = no scrape.
	Spec     string
	Interval time.Duration
	Extra    []string // further families to keep (--server-metric)
	// ResetPrefixCache POSTs the server's /reset_prefix_cache before the
	// timed run (--reset-prefix-cache).
	ResetPrefixCache bool
}

// Start starts the window of one timed run against base (the run's base
// URL); nil when o asks for nothing. insecure and worker are
// WindowConfig's; errw gets the warnings, among them a Spec that does not
// resolve (the caller checks it before the run).
func (o Options) Start(ctx context.Context, base string, insecure, worker bool, errw io.Writer) *Window {
	if o.Spec == "" && !o.ResetPrefixCache {
		return nil
	}
	cfg := WindowConfig{Interval: o.Interval, Extra: o.Extra, Insecure: insecure, Worker: worker, Errw: errw}
	if o.ResetPrefixCache {
		cfg.ResetBase = base
	}
	if o.Spec != "" {
		urls, err := ResolveURLs(o.Spec, base)
		if err != nil {
			fmt.Fprintln(errw, "Warning:", err)
		}
		cfg.URLs = urls
	}
	return StartWindow(ctx, cfg)
}
